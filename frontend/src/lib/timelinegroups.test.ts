import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../api/types';
import { callView, EventGroups, type FlatRow } from './timelinegroups';

const ev = (seq: number, call: string, kind: string, payload: Record<string, unknown> = {}, actor = 'system'): AuditEvent => ({
  seq,
  time: `2026-01-01T00:00:${String(seq).padStart(2, '0')}Z`,
  session: 's1',
  call_id: call,
  kind,
  actor,
  payload,
  prev_hash: '',
  hash: `h${seq}`,
});

// One run_command as the daemon records it (seven rows), a read that is
// one row, and events of no call around them.
const log: AuditEvent[] = [
  ev(1, '', 'session.start', { client_name: 'claude-code' }, 'agent:claude-code'),
  ev(2, 'c1', 'tool.call', { tool: 'run_command', args: { argv: ['go', 'test', './...'] } }, 'agent:claude-code'),
  ev(3, 'c1', 'tool.validated', { tool: 'run_command' }),
  ev(4, 'c1', 'policy.decision', { tool: 'run_command', verdict: 'allow' }, 'policy'),
  ev(5, 'c1', 'exec.started', { argv: ['go', 'test', './...'], backend: 'bwrap' }),
  ev(6, 'c1', 'checkpoint.created', { phase: 'pre' }),
  ev(7, 'c1', 'exec.finished', { exit_code: 1 }),
  ev(8, 'c1', 'tool.result', { tool: 'run_command', is_error: true, outcome: { outcome: 'failed', exit_code: 1 } }),
  ev(9, 'c2', 'tool.result', { tool: 'read_file', args: { path: 'go.mod' }, verdict: 'allow', outcome: { outcome: 'ok' } }, 'agent:claude-code'),
  ev(10, '', 'policy.changed', { reason: 'rule added' }, 'human'),
];

const describeRow = (r: FlatRow | null) => (r === null ? null : r.step < 0 ? (r.entry.type === 'call' ? `call ${r.entry.id}` : `event ${r.entry.event.seq}`) : `  step ${(r.entry as { events: AuditEvent[] }).events[r.step]!.kind}`);
const rows = (g: EventGroups) => Array.from({ length: g.count }, (_, i) => describeRow(g.row(i)));

describe('EventGroups', () => {
  it('folds a call’s rows into one row, newest first; events of no call stay rows', () => {
    const g = new EventGroups();
    g.add(log);
    expect(rows(g)).toEqual(['event 10', 'call c2', 'call c1', 'event 1']);
    expect(g.shown).toEqual({ calls: 2, events: 2 });
    expect(g.events).toBe(10);
  });

  it('says the tool, what it did and how it ended, with the outcome label', () => {
    const g = new EventGroups();
    g.add(log);
    const c1 = callView(g.call('c1')!);
    expect(c1.summary.tool).toBe('run_command');
    expect(c1.summary.target).toBe('run_command go test ./...');
    expect(c1.outcome).toEqual({ name: 'failed', text: 'failed (exit 1)', ended: true });
    expect(c1.actor).toBe('agent:claude-code');
    const c2 = callView(g.call('c2')!);
    expect(c2.summary.target).toBe('read_file go.mod');
    expect(c2.outcome.text).toBe('ok');
  });

  it('unfolds a call into its steps, in order, and folds it back', () => {
    const g = new EventGroups();
    g.add(log);
    expect(g.toggle('c1')).toBe(true);
    expect(rows(g)).toEqual([
      'event 10',
      'call c2',
      'call c1',
      '  step tool.call',
      '  step tool.validated',
      '  step policy.decision',
      '  step exec.started',
      '  step checkpoint.created',
      '  step exec.finished',
      '  step tool.result',
      'event 1',
    ]);
    g.toggle('c1');
    expect(g.count).toBe(4);
  });

  it('takes pages newest first and live rows in any order, each seq once', () => {
    const g = new EventGroups();
    // The newest page first: the call's end before its start.
    g.add(log.slice(5).reverse());
    expect(rows(g)).toEqual(['event 10', 'call c2', 'call c1']);
    g.add(log.slice(0, 6).reverse());
    g.add(log); // again: nothing doubles
    g.toggle('c1');
    expect(g.count).toBe(11);
    expect(g.call('c1')!.events.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(g.call('c1')!.key).toBe(2);
  });

  it('a running call gains its steps in place; a new call comes in on top', () => {
    const g = new EventGroups();
    g.add(log.slice(0, 4));
    expect(callView(g.call('c1')!).outcome).toEqual({ name: 'running', text: 'running', ended: false });
    // Live: the call's next rows and a new call. The row being read (c1) moves down by one.
    const moved = g.add([...log.slice(4, 8), ev(11, 'c3', 'tool.call', { tool: 'list_dir', args: { path: '.' } })], 0);
    expect(rows(g)).toEqual(['call c3', 'call c1', 'event 1']);
    expect(moved).toBe(1);
    expect(callView(g.call('c1')!).outcome.name).toBe('failed');
  });

  it('counts the rows that came in above the one being read, steps of unfolded calls included', () => {
    const g = new EventGroups();
    g.add(log.slice(0, 4));
    g.toggle('c1');
    // Reading event 1, the last row: c1 gains four steps above it, and one call comes in on top.
    const anchor = g.count - 1;
    expect(describeRow(g.row(anchor))).toBe('event 1');
    const moved = g.add([...log.slice(4, 8), ev(11, 'c3', 'tool.call', { tool: 'list_dir', args: { path: '.' } })], anchor);
    expect(moved).toBe(5);
    expect(describeRow(g.row(anchor + moved))).toBe('event 1');
  });

  it('a filter keeps whole calls: a call shows when any of its rows matches, with all its steps', () => {
    const g = new EventGroups((e) => e.kind.startsWith('exec.'));
    g.add(log);
    expect(rows(g)).toEqual(['call c1']);
    g.toggle('c1');
    expect(g.count).toBe(8);
    // A call that matches only once its later rows arrive shows then.
    const h = new EventGroups((e) => e.kind === 'tool.result' && e.payload?.is_error === true);
    h.add(log.slice(0, 7));
    expect(h.count).toBe(0);
    h.add(log.slice(7));
    expect(rows(h)).toEqual(['call c1']);
  });

  it('stays fast with thousands of calls', () => {
    const g = new EventGroups();
    const many: AuditEvent[] = [];
    for (let s = 1; s <= 100_000; s++) many.push(ev(s, `c${Math.floor(s / 5)}`, 'exec.finished', { exit_code: 0 }));
    const t0 = performance.now();
    // Newest pages first, as the timeline loads them, then a live batch.
    for (let hi = 100_000; hi > 0; hi -= 1000) g.add(many.slice(hi - 1000, hi).reverse());
    g.add([ev(100_001, 'c_live', 'tool.call', { tool: 'list_dir' })]);
    expect(g.count).toBe(20_002);
    expect(describeRow(g.row(0))).toBe('call c_live');
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
