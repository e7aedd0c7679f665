// Folds a session's audit events into one summary per tool call.

import type { AuditEvent } from '../api/types';
import { endOf, outcomeLabel, type CallEnd } from './outcome';
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
  /** The kind of card that approval was on when it was not the call's own: effect, network, limit, question. */
  card: string;
  /** How the call's last row looked; end says how the call ended. */
  outcome: Outcome;
  exitCode: number | null;
  firstSeq: number;
  /** How the call ended (null for calls recorded before outcomes), and the same in words. */
  end: CallEnd | null;
  label: string;
}

/** Names a card's kind beside its decision: "changes denied". */
export const CARD_NAMES: Record<string, string> = { effect: 'changes', network: 'network', limit: 'budget', question: 'question' };

/** The decision column: "changes denied" on the card its changes waited on. */
export function approvalText(c: Pick<CallSummary, 'approval' | 'card'>): string {
  if (!c.approval) return '';
  const n = CARD_NAMES[c.card];
  return n ? `${n} ${c.approval}` : c.approval;
}

/**
 * How a call row says the call ended, or that it has not: the outcome's
 * name (for styling: o-applied, o-waiting …) and its words. Once it ended,
 * the label from its last audit row ("discarded by you: keep history");
 * while a card waits, that it waits; for calls recorded before outcomes,
 * what the rows show ("error (exit 2)").
 */
export function callOutcome(c: Pick<CallSummary, 'end' | 'outcome' | 'label' | 'exitCode'>): { name: string; text: string; ended: boolean } {
  if (c.end !== null && c.outcome !== 'waiting') return { name: c.end.outcome, text: c.label, ended: true };
  return { name: c.outcome, text: `${c.outcome}${c.exitCode !== null && c.exitCode !== 0 ? ` (exit ${c.exitCode})` : ''}`, ended: false };
}

export function groupCalls(events: readonly AuditEvent[]): CallSummary[] {
  const byId = new Map<string, CallSummary>();
  for (const e of events) {
    if (!e.call_id) continue;
    let c = byId.get(e.call_id);
    const p = e.payload ?? {};
    if (!c) {
      c = { id: e.call_id, tool: '', target: '', time: e.time, verdict: '', approval: '', card: '', outcome: 'running', exitCode: null, firstSeq: e.seq, end: null, label: '' };
      byId.set(e.call_id, c);
    }
    const tool = typeof p.tool === 'string' ? p.tool : '';
    if (tool && !c.tool) c.tool = tool;
    const end = endOf(p.outcome);
    if (end) c.end = end;
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
        c.card = typeof p.kind === 'string' && p.kind !== 'call' ? p.kind : '';
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
    c.label = c.end ? outcomeLabel(c.end) : '';
  }
  return [...byId.values()].sort((a, b) => a.firstSeq - b.firstSeq);
}
