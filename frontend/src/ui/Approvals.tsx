// The approval queue: oldest first, one card per pending call, driven by
// keyboard (a / s / d, Enter, Esc, j / k) or mouse. A click lands only on
// the card it was aimed at (see lib/placement).

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ApprovalRequest, Scope } from '../api/types';
import { decisionBody } from '../lib/decision';
import { escapeHiddenToml } from '../lib/visible';
import { keyEffect, keyTarget, type Armed } from '../lib/keys';
import { PlacementGuard } from '../lib/placement';
import { decide, store } from '../state/app';
import { useStore } from '../state/store';
import { ApprovalCard, type CardActions } from './ApprovalCard';
import { CardNoteLine } from './CardNotes';
import { Empty } from './common';
import { useLoad } from './hooks';
import { FloodBar } from './FloodBar';
import { href } from './router';
import { plural } from '../lib/format';
import { agentsQuiet } from '../lib/sessionview';
import type { Session } from '../api/types';

type ArmState = { id: string; action: Armed | 'always' } | null;

// Scrolling the person does themselves moves cards on purpose.
const USER_SCROLL_MS = 400;
const MOVED_NOTE_MS = 2500;

/** The always rule and conflict choices as the card's inputs hold them. */
function cardInputs(card: HTMLElement | null): { rule?: string; staged: string[] } {
  const rule = card?.querySelector<HTMLTextAreaElement>('[data-keyrole="always-rule"]')?.value;
  const staged = [...(card?.querySelectorAll<HTMLInputElement>('input[data-conflict][value="agent"]') ?? [])].filter((i) => i.checked).map((i) => i.dataset.conflict!);
  return { ...(rule !== undefined ? { rule } : {}), staged };
}

/** Whether a click was aimed at the guarded element it landed in. */
function aimedAt(guard: PlacementGuard, e: MouseEvent): boolean {
  // A keyboard "click" (Enter or Space on the button) has detail 0.
  if (e.detail === 0) return true;
  const el = e.currentTarget instanceof Element ? e.currentTarget.closest<HTMLElement>('[data-guard]') : null;
  if (!el) return false;
  return guard.allows(el.dataset.guard!, el.getBoundingClientRect().top, performance.now());
}

export function Approvals() {
  const approvals = useStore(store, (s) => s.approvals);
  const paused = useStore(store, (s) => s.status?.state.paused ?? false);
  const timeout = useStore(store, (s) => s.approvalTimeoutS);
  const clients = useStore(store, (s) => s.clients);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [armed, setArmed] = useState<ArmState>(null);
  const [busy, setBusy] = useState<Set<string>>(new Set());
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [moved, setMoved] = useState<string | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const screenRef = useRef<HTMLElement>(null);
  const guard = useMemo(() => new PlacementGuard(), []);

  // The active card is the one the person last touched, else the oldest.
  const active = approvals.find((a) => a.id === activeId) ?? approvals[0] ?? null;

  const cardEl = (id: string) => listRef.current?.querySelector<HTMLElement>(`[data-approval-id="${CSS.escape(id)}"]`) ?? null;
  const focusCard = (id: string) => {
    setActiveId(id);
    cardEl(id)?.focus({ preventScroll: false });
  };

  // Where each card (and each "deny all" row) is, after every render and
  // whenever something moves it.
  const measure = (rebase: boolean) => {
    const screen = screenRef.current;
    if (!screen) return;
    const now = performance.now();
    const ids: string[] = [];
    for (const el of screen.querySelectorAll<HTMLElement>('[data-guard]')) {
      const id = el.dataset.guard!;
      ids.push(id);
      const top = el.getBoundingClientRect().top;
      if (rebase) guard.rebase(id, top);
      else guard.observe(id, top, now);
    }
    guard.keep(ids);
  };
  useLayoutEffect(() => measure(false));
  useEffect(() => {
    let userScrollAt = -Infinity;
    const onMove = (e: PointerEvent) => guard.pointer(e.clientX, e.clientY);
    const onUserScroll = () => (userScrollAt = performance.now());
    const onKey = (e: KeyboardEvent) => {
      if (['PageDown', 'PageUp', 'Home', 'End', ' ', 'ArrowDown', 'ArrowUp'].includes(e.key)) userScrollAt = performance.now();
    };
    const onScroll = () => measure(performance.now() - userScrollAt < USER_SCROLL_MS);
    const ro = new ResizeObserver(() => measure(false));
    if (screenRef.current) ro.observe(screenRef.current);
    addEventListener('pointermove', onMove, { passive: true });
    addEventListener('wheel', onUserScroll, { passive: true });
    addEventListener('touchmove', onUserScroll, { passive: true });
    addEventListener('keydown', onKey, true);
    addEventListener('scroll', onScroll, { capture: true, passive: true });
    return () => {
      ro.disconnect();
      removeEventListener('pointermove', onMove);
      removeEventListener('wheel', onUserScroll);
      removeEventListener('touchmove', onUserScroll);
      removeEventListener('keydown', onKey, true);
      removeEventListener('scroll', onScroll, true);
    };
  }, [approvals.length > 0]);
  useEffect(() => {
    if (!moved) return;
    const t = setTimeout(() => setMoved(null), MOVED_NOTE_MS);
    return () => clearTimeout(t);
  }, [moved]);

  // Handlers read the latest state through a ref so `actions` stays one
  // object for the life of the screen and memoized cards are not re-rendered.
  const latest = useRef({ approvals, busy });
  latest.current = { approvals, busy };

  const actions: CardActions = useMemo(() => {
    const run = async (req: ApprovalRequest, decision: 'allow' | 'deny', scope: Scope, message: string) => {
      const id = req.id;
      if (latest.current.busy.has(id)) return;
      const idx = latest.current.approvals.findIndex((a) => a.id === id);
      const inputs = cardInputs(cardEl(id));
      const body = decisionBody({ decision, scope, message, shownRule: req.always_rule ? escapeHiddenToml(req.always_rule) : undefined, editedRule: inputs.rule, staged: req.kind === 'effect' ? inputs.staged : [] });
      setBusy((b) => new Set(b).add(id));
      setErrors((e) => (e[id] ? { ...e, [id]: '' } : e));
      const wasAlways = scope === 'always';
      setArmed(null);
      const r = await decide(id, body);
      setBusy((b) => {
        const n = new Set(b);
        n.delete(id);
        return n;
      });
      if (!r.ok && r.refusal === 'invalid') {
        // The card stays: say why on it, with the rule still open to fix.
        setErrors((e) => ({ ...e, [id]: r.message }));
        if (wasAlways) setArmed({ id, action: 'always' });
        return;
      }
      // Keep the keyboard flow going on the next card.
      if (r.ok || r.refusal === 'withdrawn' || r.refusal === 'gone') {
        const next = store.get().approvals;
        const target = next[Math.min(idx, next.length - 1)];
        if (target) focusCard(target.id);
      }
    };
    const find = (id: string) => latest.current.approvals.find((a) => a.id === id);
    return {
      arm: (id, action) => setArmed(action ? { id, action } : null),
      focus: (id) => setActiveId(id),
      aimed: (id, e) => {
        if (aimedAt(guard, e)) return true;
        setMoved(id);
        return false;
      },
      allow: (id, scope: Scope) => {
        const req = find(id);
        if (req) void run(req, 'allow', scope, '');
      },
      deny: (id, message) => {
        const req = find(id);
        if (req) void run(req, 'deny', 'once', message);
      },
      answer: (id, text) => {
        const req = find(id);
        // An empty answer is not consent: it is never sent.
        if (req && text.trim()) void run(req, 'allow', 'once', text);
      },
    };
  }, []);

  // A layout effect, so the listener that sees the new state is in place
  // by the time the page shows it: with a plain effect, Enter pressed
  // right after "a" armed the button still met the old listener and was
  // dropped (seen in the e2e run on a busy machine).
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!active) return;
      const target = keyTarget(e.target);
      // Inside a card's text box, the key belongs to that card.
      const card = (e.target instanceof HTMLElement && e.target.closest<HTMLElement>('[data-approval-id]')?.dataset.approvalId) || active.id;
      const req = approvals.find((a) => a.id === card);
      if (!req) return;
      if (target === 'answer' && e.key === 'Enter' && e.shiftKey) return; // newline in the answer
      const cur = armed?.id === req.id && armed.action !== 'always' ? armed.action : null;
      const session = (req.kind === 'call' || req.kind === 'network') && !req.no_session_scope;
      const eff = keyEffect({ key: e.key, ctrl: e.ctrlKey, meta: e.metaKey, alt: e.altKey, composing: e.isComposing, target }, cur, req.kind, session);
      if (!eff) return;
      e.preventDefault();
      switch (eff.type) {
        case 'arm':
          setActiveId(req.id);
          setArmed({ id: req.id, action: eff.action });
          break;
        case 'cancel':
          setArmed(null);
          focusCard(req.id);
          break;
        case 'move': {
          const i = approvals.findIndex((a) => a.id === req.id);
          const next = approvals[Math.max(0, Math.min(approvals.length - 1, i + eff.delta))];
          if (next) focusCard(next.id);
          setArmed(null);
          break;
        }
        case 'confirm': {
          const el = cardEl(req.id);
          if (eff.action === 'deny') actions.deny(req.id, el?.querySelector<HTMLInputElement>('[data-keyrole="deny-message"]')?.value ?? '');
          else if (eff.action === 'answer') actions.answer(req.id, el?.querySelector<HTMLTextAreaElement>('[data-keyrole="answer"]')?.value ?? '');
          else actions.allow(req.id, eff.action);
          break;
        }
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  });

  if (approvals.length === 0) {
    return (
      <section class="screen" aria-labelledby="approvals-h">
        <div class="screen-head approvals-head">
          <h1 id="approvals-h">Approvals</h1>
          <CardNoteLine />
        </div>
        <Empty title="Nothing is waiting for you">
          <p>
            When an agent asks to do something your policy does not allow outright, it appears here and waits up to {plural(timeout, 'second')} for your answer before it is denied
            automatically.
          </p>
          <AgentsLine />
        </Empty>
      </section>
    );
  }

  return (
    <section class="screen" aria-labelledby="approvals-h" ref={screenRef}>
      <div class="screen-head approvals-head">
        <h1 id="approvals-h">
          Approvals <span class="count">{approvals.length}</span>
        </h1>
        <CardNoteLine
          fallback={
            <>
              <kbd>a</kbd> allow once · <kbd>s</kbd> for session · <kbd>d</kbd> deny · <kbd>Enter</kbd> confirm · <kbd>j</kbd>/<kbd>k</kbd> next/previous
            </>
          }
        />
      </div>
      {paused && <p class="notice info">Agents are paused: new calls wait until you resume, but you can still answer these.</p>}
      <FloodBar approvals={approvals} clients={clients} aimed={(e) => aimedAt(guard, e)} />
      <div class="cards" ref={listRef}>
        {approvals.map((req) => (
          <ApprovalCard
            key={req.id}
            req={req}
            client={clients[req.session] ?? ''}
            active={active?.id === req.id}
            armed={armed?.id === req.id ? armed.action : null}
            busy={busy.has(req.id)}
            error={errors[req.id] ?? ''}
            moved={moved === req.id}
            actions={actions}
          />
        ))}
      </div>
    </section>
  );
}

// What the empty screen says about agents, true for a fresh install and for
// one whose agents are busy: whether any session ever started decides it.
function AgentsLine() {
  const active = useStore(store, (s) => s.status?.state.active_sessions);
  const any = useLoad<{ sessions: Session[] }>(active ? null : '/api/v1/sessions?limit=1');
  const ever = any.data ? any.data.sessions.length > 0 : null;
  const policy = (
    <>
      Want fewer questions? Review your <a href={href('policy')}>policy</a>.
    </>
  );
  switch (agentsQuiet(active, ever)) {
    case 'working':
      return (
        <p data-agents="working">
          {plural(active ?? 0, 'agent session')} connected, working without needing you: every call shows on the <a href={href('timeline')}>Timeline</a>. {policy}
        </p>
      );
    case 'none-now':
      return (
        <p data-agents="none-now">
          No agent is connected right now; earlier sessions and what they did are under <a href={href('sessions')}>Sessions</a>. {policy}
        </p>
      );
    case 'none-yet':
      return (
        <p data-agents="none-yet">
          No agent has connected yet: see <a href={href('connect')}>Connect</a> to wire one. {policy}
        </p>
      );
    default:
      return <p>{policy}</p>;
  }
}
