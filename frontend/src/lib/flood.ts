// Cards waiting per session, for "Deny all from this session".

import type { ApprovalRequest } from '../api/types';

export interface SessionQueue {
  session: string;
  count: number;
  /** When its oldest card arrived, to list sessions in the cards' order. */
  oldest: string;
}

export function bySession(approvals: readonly ApprovalRequest[]): SessionQueue[] {
  const m = new Map<string, SessionQueue>();
  for (const a of approvals) {
    const q = m.get(a.session);
    if (q) {
      q.count++;
      if (a.created_at < q.oldest) q.oldest = a.created_at;
    } else m.set(a.session, { session: a.session, count: 1, oldest: a.created_at });
  }
  return [...m.values()].sort((a, b) => a.oldest.localeCompare(b.oldest));
}
