// Folds a session's audit events into one summary per tool call.

import type { AuditEvent } from '../api/types';
import { callTarget } from './summary';

export type Outcome = 'running' | 'waiting' | 'ok' | 'error' | 'denied' | 'invalid';

export interface CallSummary {
  id: string;
  tool: string;
  target: string;
  time: string;
  verdict: string;
  /** approval.decided status (allowed, denied, expired, answered, withdrawn), if asked. */
  approval: string;
  outcome: Outcome;
  exitCode: number | null;
  firstSeq: number;
}

export function groupCalls(events: AuditEvent[]): CallSummary[] {
  const byId = new Map<string, CallSummary>();
  for (const e of events) {
    if (!e.call_id) continue;
    let c = byId.get(e.call_id);
    const p = e.payload ?? {};
    if (!c) {
      c = { id: e.call_id, tool: '', target: '', time: e.time, verdict: '', approval: '', outcome: 'running', exitCode: null, firstSeq: e.seq };
      byId.set(e.call_id, c);
    }
    const tool = typeof p.tool === 'string' ? p.tool : '';
    if (tool && !c.tool) c.tool = tool;
    switch (e.kind) {
      case 'tool.call':
        c.target = callTarget(tool, p.args);
        break;
      case 'tool.invalid':
        c.outcome = 'invalid';
        break;
      case 'policy.decision':
        c.verdict = String(p.verdict ?? '');
        break;
      case 'approval.requested':
        c.outcome = 'waiting';
        break;
      case 'approval.decided':
      case 'approval.expired':
      case 'approval.withdrawn':
        c.approval = String(p.status ?? 'expired');
        if (c.outcome === 'waiting') c.outcome = 'running';
        break;
      case 'exec.finished':
        c.exitCode = typeof p.exit_code === 'number' ? p.exit_code : null;
        break;
      case 'tool.denied':
        c.outcome = 'denied';
        break;
      case 'tool.error':
        c.outcome = 'error';
        break;
      case 'tool.result':
        c.outcome = p.is_error ? 'error' : 'ok';
        // An allowed local read is one row: it carries its args and verdict.
        if (p.args !== undefined) c.target = callTarget(tool, p.args);
        if (p.verdict !== undefined) c.verdict = String(p.verdict);
        break;
    }
    if (!c.target && c.tool) c.target = c.tool;
  }
  return [...byId.values()].sort((a, b) => a.firstSeq - b.firstSeq);
}
