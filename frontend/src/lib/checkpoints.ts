// The checkpoint health the status reports, as the banner says it.

import type { Status } from '../api/types';

/** One sentence for the banner, or null while checkpoints work. */
export function checkpointProblem(status: Status | null, clock: (iso: string) => string): string | null {
  const c = status?.checkpoints;
  if (!c || c.ok) return null;
  const since = c.since ? ` since ${clock(c.since)}` : '';
  const why = c.problem ? `: ${c.problem.replace(/\.$/, '')}` : '';
  return `Checkpoints are failing${since}${why}. Undo is not available for new calls: calls that change files are refused while Gatehouse cannot checkpoint them (reads still run).`;
}
