// "Deny all from this session": the answer to an agent that floods the
// person with cards (a session may have only so many waiting).

import { useState } from 'preact/hooks';
import type { ApprovalRequest } from '../api/types';
import { bySession } from '../lib/flood';
import { shortId } from '../lib/format';
import { denySession } from '../state/app';
import { Vis } from './Visible';
import { plural } from '../lib/format';

// One card from a session is answered on the card itself.
const FROM = 2;

export function FloodBar({ approvals, clients, aimed }: { approvals: readonly ApprovalRequest[]; clients: Record<string, string>; aimed(e: MouseEvent): boolean }) {
  const [busy, setBusy] = useState<string | null>(null);
  const queues = bySession(approvals).filter((q) => q.count >= FROM);
  if (queues.length === 0) return null;
  const deny = async (e: MouseEvent, session: string) => {
    if (!aimed(e)) return;
    setBusy(session);
    await denySession(session, 'the person denied everything this session had waiting');
    setBusy(null);
  };
  return (
    <ul class="flood" aria-label="Waiting by session">
      {queues.map((q) => (
        <li key={q.session} data-guard={`flood:${q.session}`} data-session={q.session}>
          <span>
            <strong>
              <Vis text={clients[q.session] || 'An agent'} />
            </strong>{' '}
            <span class="muted">session {shortId(q.session)}</span> has {plural(q.count, 'call')} waiting.
          </span>
          <button type="button" class="btn small danger" disabled={busy === q.session} onClick={(e) => void deny(e, q.session)}>
            Deny all from this session
          </button>
        </li>
      ))}
    </ul>
  );
}
