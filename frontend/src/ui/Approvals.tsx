// The approval queue: oldest first, one card per pending call, driven by
// keyboard (a / s / d, Enter, Esc, j / k) or mouse.

import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Scope } from '../api/types';
import { keyEffect, keyTarget, type Armed } from '../lib/keys';
import { decide, store } from '../state/app';
import { useStore } from '../state/store';
import { ApprovalCard, type CardActions } from './ApprovalCard';
import { Empty } from './common';
import { href } from './router';

type ArmState = { id: string; action: Armed | 'always' } | null;

export function Approvals() {
  const approvals = useStore(store, (s) => s.approvals);
  const paused = useStore(store, (s) => s.status?.state.paused ?? false);
  const timeout = useStore(store, (s) => s.approvalTimeoutS);
  const clients = useStore(store, (s) => s.clients);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [armed, setArmed] = useState<ArmState>(null);
  const [busy, setBusy] = useState<Set<string>>(new Set());
  const listRef = useRef<HTMLDivElement>(null);

  // The active card is the one the person last touched, else the oldest.
  const active = approvals.find((a) => a.id === activeId) ?? approvals[0] ?? null;

  const focusCard = (id: string) => {
    setActiveId(id);
    listRef.current?.querySelector<HTMLElement>(`[data-approval-id="${CSS.escape(id)}"]`)?.focus();
  };

  // Handlers read the latest state through a ref so `actions` stays one
  // object for the life of the screen and memoized cards are not re-rendered.
  const latest = useRef({ approvals, busy });
  latest.current = { approvals, busy };

  const actions: CardActions = useMemo(() => {
    const run = async (id: string, fn: () => Promise<boolean>) => {
      if (latest.current.busy.has(id)) return;
      const idx = latest.current.approvals.findIndex((a) => a.id === id);
      setBusy((b) => new Set(b).add(id));
      setArmed(null);
      const ok = await fn();
      setBusy((b) => {
        const n = new Set(b);
        n.delete(id);
        return n;
      });
      // Keep the keyboard flow going on the next card.
      if (ok) {
        const next = store.get().approvals;
        const target = next[Math.min(idx, next.length - 1)];
        if (target) focusCard(target.id);
      }
    };
    return {
      arm: (id, action) => setArmed(action ? { id, action } : null),
      focus: (id) => setActiveId(id),
      allow: (id, scope: Scope) => void run(id, () => decide(id, 'allow', scope)),
      deny: (id, message) => void run(id, () => decide(id, 'deny', 'once', message)),
      answer: (id, text) => void run(id, () => decide(id, 'allow', 'once', text)),
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
      const eff = keyEffect({ key: e.key, ctrl: e.ctrlKey, meta: e.metaKey, alt: e.altKey, composing: e.isComposing, target }, cur, req.kind);
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
          const el = listRef.current?.querySelector<HTMLElement>(`[data-approval-id="${CSS.escape(req.id)}"]`);
          if (eff.action === 'deny') actions.deny(req.id, el?.querySelector<HTMLInputElement>('[data-keyrole="deny-message"]')?.value ?? '');
          else if (eff.action === 'answer') {
            const text = el?.querySelector<HTMLTextAreaElement>('[data-keyrole="answer"]')?.value ?? '';
            if (text.trim()) actions.answer(req.id, text);
          } else actions.allow(req.id, eff.action);
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
        <h1 id="approvals-h">Approvals</h1>
        <Empty title="Nothing is waiting for you">
          <p>
            When an agent asks to do something your policy does not allow outright, it appears here and waits up to {timeout} seconds for your answer before it is denied
            automatically.
          </p>
          <p>
            No agent connected yet? See <a href={href('connect')}>Connect</a>. Want fewer questions? Review your <a href={href('policy')}>policy</a>.
          </p>
        </Empty>
      </section>
    );
  }

  return (
    <section class="screen" aria-labelledby="approvals-h">
      <div class="screen-head">
        <h1 id="approvals-h">
          Approvals <span class="count">{approvals.length}</span>
        </h1>
        <p class="muted keys-help">
          <kbd>a</kbd> allow once · <kbd>s</kbd> for session · <kbd>d</kbd> deny · <kbd>Enter</kbd> confirm · <kbd>j</kbd>/<kbd>k</kbd> next/previous
        </p>
      </div>
      {paused && <p class="notice info">Agents are paused: new calls wait until you resume, but you can still answer these.</p>}
      <div class="cards" ref={listRef}>
        {approvals.map((req) => (
          <ApprovalCard
            key={req.id}
            req={req}
            client={clients[req.session] ?? ''}
            active={active?.id === req.id}
            armed={armed?.id === req.id ? armed.action : null}
            busy={busy.has(req.id)}
            actions={actions}
          />
        ))}
      </div>
    </section>
  );
}
