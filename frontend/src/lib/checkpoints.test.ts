import { describe, expect, it } from 'vitest';
import type { Status } from '../api/types';
import { checkpointProblem } from './checkpoints';

const st = (c: Status['checkpoints']): Status => ({ state: { paused: false, killed: false, active_sessions: 0 }, checkpoints: c });
const clock = (iso: string) => `<${iso}>`;

describe('checkpointProblem', () => {
  it('says nothing while checkpoints work, or on a daemon that does not report them', () => {
    expect(checkpointProblem(st({ ok: true }), clock)).toBeNull();
    expect(checkpointProblem(st(undefined), clock)).toBeNull();
    expect(checkpointProblem(null, clock)).toBeNull();
  });
  it('says they fail, why, since when, and that undo is gone', () => {
    expect(checkpointProblem(st({ ok: false, problem: 'the snapshot store is full (budget 2048 MiB).', since: '2026-01-01T10:00:00Z' }), clock)).toBe(
      'Checkpoints are failing since <2026-01-01T10:00:00Z>: the snapshot store is full (budget 2048 MiB). Undo is not available for new calls: calls that change files are refused while Gatehouse cannot checkpoint them (reads still run).',
    );
    expect(checkpointProblem(st({ ok: false }), clock)).toBe('Checkpoints are failing. Undo is not available for new calls: calls that change files are refused while Gatehouse cannot checkpoint them (reads still run).');
  });
});
