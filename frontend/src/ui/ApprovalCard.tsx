// One pending approval: what the agent wants, why policy asked, what it
// risks, and the answers, each saying what it would allow. Rendering cost
// is kept small because the time from event to card is measured.
//
// No element on a card carries a tooltip: a tooltip opens over what is
// below the pointer, and the risks must stay readable.

import { memo } from 'preact/compat';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ApprovalRequest } from '../api/types';
import { choices, headline, hiddenOnCard, splitRisks, viaLine } from '../lib/cardtext';
import { countdown, countdownLabel } from '../lib/countdown';
import type { Armed } from '../lib/keys';
import { actorName, shortId } from '../lib/format';
import { describeSnippet } from '../lib/rulesummary';
import { metrics, pushSample } from '../state/metrics';
import { arrivals } from '../state/app';
import { CallDetails } from './cards/CallDetails';
import { EffectDetails } from './cards/EffectDetails';
import { NetworkDetails } from './cards/NetworkDetails';
import { reasonOnRiskLine, riskInfo, riskLine } from './risks';
import { useNow } from './hooks';
import { href } from './router';
import { escapeHiddenToml } from '../lib/visible';
import { Vis } from './Visible';

export interface CardActions {
  arm(id: string, action: Armed | 'always' | null): void;
  focus(id: string): void;
  /**
   * False when a pointer click landed on a card that had only just moved
   * under the pointer (the click was meant for what was there before).
   */
  aimed(id: string, e: MouseEvent): boolean;
  allow(id: string, scope: 'once' | 'session' | 'always'): void;
  deny(id: string, message: string): void;
  answer(id: string, text: string): void;
}

export interface CardProps {
  req: ApprovalRequest;
  client: string;
  armed: Armed | 'always' | null;
  active: boolean;
  busy: boolean;
  /** The daemon's sentence when it refused the last decision (a bad rule). */
  error: string;
  /** A click was just refused because the card had moved under the pointer. */
  moved: boolean;
  /** Stable across renders, so an unchanged card is skipped. */
  actions: CardActions;
}

// Memoized: a new card arriving re-renders only itself, which keeps the time
// from event to card small with a long queue.
export const ApprovalCard = memo(function ApprovalCard(p: CardProps) {
  const { req } = p;
  const ref = useRef<HTMLElement>(null);
  const denyRef = useRef<HTMLInputElement>(null);
  const answerRef = useRef<HTMLTextAreaElement>(null);
  const [message, setMessage] = useState('');
  const [answer, setAnswer] = useState('');

  // Mounted = in the DOM: record how long the card took from its event.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.dataset.renderedAt = String(Date.now());
    const a = arrivals.get(req.id);
    if (a) {
      const m = metrics();
      pushSample(m.cardLatencies, Date.now() - a.eventTime);
      pushSample(m.cardReceiveLatencies, performance.now() - a.receivedAt);
    }
  }, [req.id]);

  useLayoutEffect(() => {
    if (!p.active) return;
    if (p.armed === 'deny') denyRef.current?.focus();
    else if (p.armed === 'answer') answerRef.current?.focus();
  }, [p.armed, p.active]);

  const a = p.actions;
  // A decision button: a pointer click must have been aimed at this card.
  const click = (fn: () => void) => (e: MouseEvent) => {
    if (a.aimed(req.id, e)) fn();
  };
  const titleId = `ap-${req.id}-title`;
  const question = req.kind === 'question';
  const c = choices(req);
  const { drift, other } = splitRisks(req.risks);
  const hidden = hiddenOnCard(req);
  const via = viaLine(req);

  return (
    <article
      ref={ref}
      class={`card approval kind-${req.kind}${p.active ? ' active' : ''}${p.busy ? ' busy' : ''}`}
      data-approval-id={req.id}
      data-guard={req.id}
      data-kind={req.kind}
      tabIndex={-1}
      aria-labelledby={titleId}
      onFocusCapture={() => a.focus(req.id)}
    >
      <header class="card-head">
        <h3 id={titleId}>
          {question ? 'Question from ' : ''}
          <span class="agent">
            <Vis text={p.client || actorName(req.actor)} />
          </span>
          {!question && ` ${headline(req)}`}
          {req.kind === 'call' && (
            <>
              {' '}
              <code class="tool">{req.tool}</code>
            </>
          )}
        </h3>
        {via && <span class="via">{via}</span>}
        <a class="muted session-link" href={href('sessions', req.session)} aria-label={`session ${req.session}`}>
          session {shortId(req.session)}
        </a>
        <Countdown expiresAt={req.expires_at} />
      </header>

      {drift.map((r, i) => (
        <p key={i} class="drift" role="alert">
          <span class="badge">Drifts from the request</span> {r.detail ? <Vis text={sentence(r.detail)} multiline /> : riskInfo(r.kind).meaning}
        </p>
      ))}
      {req.goal && (
        <p class="goal">
          <span class="muted">The person asked:</span>{' '}
          <q>
            <Vis text={req.goal} multiline />
          </q>
        </p>
      )}
      {hidden.length > 0 && (
        <p class="hidden-warning" role="alert">
          <span class="badge">Hidden characters</span> This card contains invisible or direction-changing characters, shown as marked tokens:{' '}
          {hidden.map((h, i) => (
            <span key={h.cp}>
              {i > 0 && ', '}
              <mark class="invis">{h.token}</mark>
              {h.name && ` ${h.name}`}
            </span>
          ))}
          . What runs is exactly what is shown here, in this order.
        </p>
      )}
      {other.length > 0 && (
        <ul class="risks" aria-label="Risks">
          {other.map((r, i) => {
            const line = riskLine(r, req.reason);
            return (
              <li key={i} class={`risk risk-${r.kind}`}>
                <span class="badge">{line.label}</span> {line.fromDetail ? <Vis text={line.text} multiline /> : line.text}
                {line.extra && (
                  <span class="muted">
                    {' '}
                    <Vis text={line.extra} multiline />
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}

      {question ? (
        <p class="question">
          <Vis text={req.question ?? ''} multiline />
        </p>
      ) : req.kind === 'network' ? (
        <NetworkDetails req={req} />
      ) : req.kind === 'effect' ? (
        <EffectDetails req={req} />
      ) : req.kind === 'call' ? (
        <CallDetails req={req} />
      ) : null}

      {reasonOnRiskLine(req.reason, other) ? (
        // The risk line above says the reason already: say only which rule asks.
        req.rule && (
          <p class="reason">
            <span class="rule">
              Asked by <Vis text={req.rule} />.
            </span>
          </p>
        )
      ) : (
        <p class="reason">
          <Vis text={req.reason} multiline />
          {req.rule && (
            <span class="rule">
              {' — '}
              <Vis text={req.rule} />
            </span>
          )}
        </p>
      )}

      {question ? (
        <div class="answer-row">
          <label for={`ans-${req.id}`}>Your answer</label>
          <textarea
            id={`ans-${req.id}`}
            ref={answerRef}
            data-keyrole="answer"
            rows={2}
            value={answer}
            onInput={(e) => setAnswer(e.currentTarget.value)}
            placeholder="Type the answer; Enter sends it, Shift+Enter adds a line"
          />
          <div class="actions">
            {/* An empty answer would read as consent: nothing to send until there is text. */}
            <button type="button" class="btn primary" disabled={p.busy || answer.trim() === ''} onClick={click(() => a.answer(req.id, answer))}>
              {c.allow}
            </button>
            <button type="button" class="btn" disabled={p.busy} onClick={click(() => a.deny(req.id, ''))}>
              {c.deny}
            </button>
          </div>
        </div>
      ) : (
        <>
          <div class="actions" role="group" aria-label="Decision">
            <button type="button" class={`btn primary${p.armed === 'once' ? ' armed' : ''}`} disabled={p.busy} onClick={click(() => a.allow(req.id, 'once'))} aria-keyshortcuts="a">
              {c.allow} <kbd>a</kbd>
            </button>
            {c.session?.offered && (
              <button type="button" class={`btn${p.armed === 'session' ? ' armed' : ''}`} disabled={p.busy} onClick={click(() => a.allow(req.id, 'session'))} aria-keyshortcuts="s">
                Allow for session <kbd>s</kbd>
              </button>
            )}
            {c.always && (
              req.always_rule ? (
                <button type="button" class={`btn${p.armed === 'always' ? ' armed' : ''}`} disabled={p.busy} aria-expanded={p.armed === 'always'} onClick={() => a.arm(req.id, p.armed === 'always' ? null : 'always')}>
                  Always allow…
                </button>
              ) : (
                // No rule to edit first (a workspace root): the answer is the whole choice.
                <button type="button" class="btn" disabled={p.busy} onClick={click(() => a.allow(req.id, 'always'))}>
                  Always allow
                </button>
              )
            )}
            <span class="deny-group">
              <label class="sr-only" for={`deny-${req.id}`}>
                Message to the agent (optional)
              </label>
              <input
                id={`deny-${req.id}`}
                ref={denyRef}
                data-keyrole="deny-message"
                type="text"
                value={message}
                placeholder="Message to the agent (optional)"
                onInput={(e) => setMessage(e.currentTarget.value)}
                onFocus={() => a.arm(req.id, 'deny')}
              />
              <button type="button" class={`btn danger${p.armed === 'deny' ? ' armed' : ''}`} disabled={p.busy} onClick={click(() => a.deny(req.id, message))} aria-keyshortcuts="d">
                {c.deny} <kbd>d</kbd>
              </button>
            </span>
          </div>
          {p.moved && (
            <p class="moved-note" role="status">
              This card had just moved under the pointer, so that click was not taken. Click again to decide it.
            </p>
          )}
          {p.armed === 'always' && req.always_rule && <AlwaysEditor req={req} busy={p.busy} error={p.error} actions={a} onClick={click} />}
          {p.active && (p.armed === 'once' || p.armed === 'session') && (
            <p class="hint" role="status">
              Press <kbd>Enter</kbd> to {p.armed === 'once' ? c.allow.toLowerCase() : 'allow for this session'}, <kbd>Esc</kbd> to cancel.
            </p>
          )}
          <ul class="scope-help" aria-label="What each answer does">
            <li>
              <Vis text={c.allowHelp} />
            </li>
            {c.session && (
              <li class={c.session.offered ? '' : 'no-session'}>
                <Vis text={c.session.offered ? c.session.help : c.session.why} multiline />
              </li>
            )}
            {c.always && (
              <li>
                <Vis text={c.always.help} multiline />
              </li>
            )}
            <li>
              <Vis text={c.denyHelp} />
            </li>
          </ul>
        </>
      )}
    </article>
  );
});

/** "the person's request…" → "The person's request…". */
function sentence(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// The rule "Always allow" writes, editable before it is saved. The daemon
// checks an edited rule and answers with a sentence when it does not parse.
function AlwaysEditor({ req, busy, error, actions, onClick }: { req: ApprovalRequest; busy: boolean; error: string; actions: CardActions; onClick(fn: () => void): (e: MouseEvent) => void }) {
  // A text box cannot mark hidden characters: they are written as escapes.
  const [text, setText] = useState(escapeHiddenToml(req.always_rule ?? ''));
  const summary = describeSnippet(text);
  const errId = `always-err-${req.id}`;
  return (
    <div class="always">
      <label for={`always-${req.id}`}>This rule will be added to your policy file; calls it matches will run without asking. You can edit it first:</label>
      <textarea
        id={`always-${req.id}`}
        class="rule-snippet"
        data-keyrole="always-rule"
        spellcheck={false}
        rows={Math.min(10, text.split('\n').length + 1)}
        value={text}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errId : undefined}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      {summary && (
        <p class="muted small">
          It matches <Vis text={summary} multiline />.
        </p>
      )}
      {error && (
        <p id={errId} class="error-line" role="alert">
          {error}
        </p>
      )}
      <button type="button" class="btn primary" disabled={busy || text.trim() === ''} onClick={onClick(() => actions.allow(req.id, 'always'))}>
        Write rule and allow
      </button>
      <button type="button" class="btn" onClick={() => actions.arm(req.id, null)}>
        Cancel
      </button>
    </div>
  );
}

// Its own component so the once-a-second tick re-renders only this span.
function Countdown({ expiresAt }: { expiresAt: string }) {
  const cd = countdown(Date.parse(expiresAt), useNow());
  return (
    <span class={`countdown ${cd.urgency}`} role="timer" aria-label={`${countdownLabel(cd)}; the call is denied automatically at 0:00`}>
      {cd.text}
    </span>
  );
}
