// One pending approval: what the agent wants, why policy asked, what it
// risks, and the four answers. Rendering cost is kept small because the
// time from event to card is measured.

import { memo } from 'preact/compat';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ApprovalRequest } from '../api/types';
import { countdown, countdownLabel } from '../lib/countdown';
import type { Armed } from '../lib/keys';
import { actorName, shortId } from '../lib/format';
import { metrics, pushSample } from '../state/metrics';
import { arrivals } from '../state/app';
import { Diff } from './Diff';
import { riskInfo } from './risks';
import { useNow } from './hooks';
import { href } from './router';

export interface CardActions {
  arm(id: string, action: Armed | 'always' | null): void;
  focus(id: string): void;
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
  const titleId = `ap-${req.id}-title`;
  const question = req.kind === 'question';
  const risks = req.risks ?? [];

  return (
    <article
      ref={ref}
      class={`card approval${p.active ? ' active' : ''}${p.busy ? ' busy' : ''}`}
      data-approval-id={req.id}
      data-kind={req.kind}
      tabIndex={-1}
      aria-labelledby={titleId}
      onFocusCapture={() => a.focus(req.id)}
    >
      <header class="card-head">
        <h3 id={titleId}>
          {question ? 'Question from ' : ''}
          <span class="agent">{p.client || actorName(req.actor)}</span>
          {!question && (
            <>
              {' wants '}
              <code class="tool">{req.tool}</code>
            </>
          )}
        </h3>
        <a class="muted session-link" href={href('sessions', req.session)} title={req.session}>
          session {shortId(req.session)}
        </a>
        <Countdown expiresAt={req.expires_at} />
      </header>

      {question ? <p class="question">{req.question}</p> : <Details req={req} />}

      <p class="reason">
        {req.reason}
        {req.rule && <span class="rule"> — {req.rule}</span>}
      </p>

      {risks.length > 0 && (
        <ul class="risks" aria-label="Risks">
          {risks.map((r, i) => {
            const info = riskInfo(r.kind);
            return (
              <li key={i} class={`risk risk-${r.kind}`}>
                <span class="badge">{info.label}</span> {info.meaning}
                {r.detail && r.detail !== req.reason && <span class="muted"> {r.detail}</span>}
              </li>
            );
          })}
        </ul>
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
            <button type="button" class="btn primary" disabled={p.busy || answer.trim() === ''} onClick={() => a.answer(req.id, answer)}>
              Send answer
            </button>
            <button type="button" class="btn" disabled={p.busy} onClick={() => a.deny(req.id, '')}>
              Decline to answer
            </button>
          </div>
        </div>
      ) : (
        <>
          <div class="actions" role="group" aria-label="Decision">
            <button type="button" class={`btn primary${p.armed === 'once' ? ' armed' : ''}`} disabled={p.busy} onClick={() => a.allow(req.id, 'once')} aria-keyshortcuts="a" title="Run this call; ask again next time">
              Allow once <kbd>a</kbd>
            </button>
            <button type="button" class={`btn${p.armed === 'session' ? ' armed' : ''}`} disabled={p.busy} onClick={() => a.allow(req.id, 'session')} aria-keyshortcuts="s" title="Allow calls like this until this agent session ends">
              Allow for session <kbd>s</kbd>
            </button>
            {req.always_rule && (
              <button type="button" class={`btn${p.armed === 'always' ? ' armed' : ''}`} disabled={p.busy} aria-expanded={p.armed === 'always'} onClick={() => a.arm(req.id, p.armed === 'always' ? null : 'always')}>
                Always allow…
              </button>
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
              <button type="button" class={`btn danger${p.armed === 'deny' ? ' armed' : ''}`} disabled={p.busy} onClick={() => a.deny(req.id, message)} aria-keyshortcuts="d">
                Deny <kbd>d</kbd>
              </button>
            </span>
          </div>
          {p.armed === 'always' && req.always_rule && (
            <div class="always">
              <p>This rule will be added to your policy file, and calls like this will run without asking:</p>
              <pre class="rule-snippet">{req.always_rule}</pre>
              <button type="button" class="btn primary" disabled={p.busy} onClick={() => a.allow(req.id, 'always')}>
                Write rule and allow
              </button>
              <button type="button" class="btn" onClick={() => a.arm(req.id, null)}>
                Cancel
              </button>
            </div>
          )}
          {p.active && (p.armed === 'once' || p.armed === 'session') && (
            <p class="hint" role="status">
              Press <kbd>Enter</kbd> to allow {p.armed === 'once' ? 'once' : 'for this session'}, <kbd>Esc</kbd> to cancel.
            </p>
          )}
        </>
      )}
    </article>
  );
});

// Its own component so the once-a-second tick re-renders only this span.
function Countdown({ expiresAt }: { expiresAt: string }) {
  const cd = countdown(Date.parse(expiresAt), useNow());
  return (
    <span class={`countdown ${cd.urgency}`} role="timer" aria-label={countdownLabel(cd)} title="The call is denied automatically when this reaches 0:00">
      {cd.text}
    </span>
  );
}

function Details({ req }: { req: ApprovalRequest }) {
  const other = req.args && !req.argv && !req.paths?.length && !req.url && !req.diff;
  return (
    <div class="details">
      {req.argv && req.argv.length > 0 && (
        <ol class="argv" aria-label="Command arguments">
          {req.argv.map((a, i) => (
            <li key={i} class={i === 0 ? 'chip argv0' : 'chip'}>
              {a === '' ? <span class="muted">(empty)</span> : a}
            </li>
          ))}
        </ol>
      )}
      {req.binary && req.argv?.[0] !== req.binary && (
        <p class="kv">
          <span>binary</span> <code>{req.binary}</code>
        </p>
      )}
      {req.paths && req.paths.length > 0 && (
        <ul class="paths" aria-label="Paths">
          {req.paths.map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
      )}
      {req.url && (
        <p class="kv">
          <span>URL</span> <code class="url">{req.url}</code>
        </p>
      )}
      {req.diff && <Diff text={req.diff} label="Proposed change" />}
      {other && <pre class="args">{JSON.stringify(req.args, null, 2)}</pre>}
    </div>
  );
}
