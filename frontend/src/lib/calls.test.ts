import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../api/types';
import { approvalText, groupCalls } from './calls';

let seq = 0;
const ev = (call: string, kind: string, payload: Record<string, unknown> = {}): AuditEvent => ({
  seq: ++seq,
  time: `t${seq}`,
  session: 's',
  call_id: call,
  kind,
  actor: 'x',
  payload,
  prev_hash: '',
  hash: '',
});

describe('groupCalls', () => {
  it('folds each call into one row in call order', () => {
    const calls = groupCalls([
      ev('', 'session.start'),
      ev('c1', 'tool.call', { tool: 'run_command', args: { argv: ['ls'] } }),
      ev('c1', 'policy.decision', { tool: 'run_command', verdict: 'allow' }),
      ev('c2', 'tool.call', { tool: 'write_file', args: { path: 'a' } }),
      ev('c2', 'policy.decision', { verdict: 'ask' }),
      ev('c2', 'approval.requested', {}),
      ev('c1', 'exec.finished', { exit_code: 0 }),
      ev('c1', 'tool.result', { tool: 'run_command', is_error: false }),
      ev('c2', 'approval.decided', { status: 'denied' }),
      ev('c2', 'tool.denied', { tool: 'write_file' }),
      ev('c3', 'tool.call', { tool: 'read_file', args: { path: 'b' } }),
      ev('c3', 'approval.requested', {}),
      ev('c4', 'tool.result', { tool: 'read_file', args: { path: 'd' }, verdict: 'allow', is_error: false }),
      ev('c5', 'tool.call', { tool: 'run_command', args: { argv: ['sleep', '9'] } }),
      ev('c5', 'approval.requested', {}),
      ev('c5', 'approval.withdrawn', { status: 'withdrawn' }),
      ev('c5', 'tool.denied', { tool: 'run_command' }),
    ]);
    expect(calls.map((c) => [c.id, c.target, c.verdict, c.approval, c.outcome, c.exitCode])).toEqual([
      ['c1', 'run_command ls', 'allow', '', 'ok', 0],
      ['c2', 'write_file a', 'ask', 'denied', 'denied', null],
      ['c3', 'read_file b', '', '', 'waiting', null],
      ['c4', 'read_file d', 'allow', '', 'ok', null],
      ['c5', 'run_command sleep 9', '', 'withdrawn', 'denied', null],
    ]);
  });
});

describe('groupCalls names how each call ended', () => {
  it('reads the outcome on the last row and which card the decision was on', () => {
    const calls = groupCalls([
      ev('d1', 'tool.call', { tool: 'run_command', args: { argv: ['git', 'reset', '--hard', 'HEAD~2'] } }),
      ev('d1', 'policy.decision', { tool: 'run_command', verdict: 'allow' }),
      ev('d1', 'approval.requested', { kind: 'effect' }),
      ev('d1', 'approval.decided', { status: 'denied', message: 'keep my history' }),
      ev('d1', 'tool.result', { tool: 'run_command', is_error: true, outcome: { outcome: 'discarded', by: 'person', message: 'keep my history', held: true } }),
      ev('d2', 'tool.call', { tool: 'run_command', args: { argv: ['sh', '-c', 'rm -rf doomed'] } }),
      ev('d2', 'approval.requested', { kind: 'effect' }),
      ev('d2', 'approval.decided', { status: 'allowed' }),
      ev('d2', 'tool.result', { tool: 'run_command', is_error: false, outcome: { outcome: 'applied', held: true } }),
      ev('d3', 'tool.call', { tool: 'run_command', args: { argv: ['false'] } }),
      ev('d3', 'tool.result', { tool: 'run_command', is_error: true, outcome: { outcome: 'failed', exit_code: 1 } }),
      ev('d4', 'tool.call', { tool: 'write_file', args: { path: 'a' } }),
      ev('d4', 'approval.requested', { kind: 'call' }),
      ev('d5', 'tool.call', { tool: 'read_file', args: { path: 'b' } }),
      ev('d5', 'tool.result', { tool: 'read_file', is_error: false }),
    ]);
    expect(calls.map((c) => [c.id, approvalText(c), c.outcome, c.end?.outcome ?? null, c.label])).toEqual([
      ['d1', 'changes denied', 'error', 'discarded', 'discarded by you: keep my history'],
      ['d2', 'changes allowed', 'ok', 'applied', 'applied after your approval'],
      ['d3', '', 'error', 'failed', 'failed (exit 1)'],
      ['d4', '', 'waiting', null, ''],
      // Recorded before outcomes: no end, the row's own look.
      ['d5', '', 'ok', null, ''],
    ]);
  });
});
