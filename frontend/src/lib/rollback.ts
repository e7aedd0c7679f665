// Normalizes the rollback reply into the lists the preview shows.

import type { Held, RollbackReply, RollbackSummary } from '../api/types';

export function rollbackSummary(r: RollbackReply): RollbackSummary {
  const src = r.summary ?? r.plan ?? {};
  return {
    restore: src.restore ?? [],
    delete: src.delete ?? [],
    recreate: src.recreate ?? [],
    conflicts: src.conflicts ?? [],
    external_edits: src.external_edits ?? [],
    diff: src.diff ?? '',
  };
}

export function heldPath(h: Held): string {
  if (typeof h === 'string') return h;
  return h.calls?.length ? `${h.path} (changed later by ${h.calls.join(', ')})` : h.path;
}

export function isEmpty(s: RollbackSummary): boolean {
  return s.restore.length + s.delete.length + s.recreate.length === 0;
}
