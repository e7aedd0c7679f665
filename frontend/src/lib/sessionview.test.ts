import { describe, expect, it } from 'vitest';
import type { Checkpoint } from '../api/types';
import { agentsQuiet, callTools, confinedHelp, runCalls, sessionState, transportLabel } from './sessionview';

const cp = (phase: 'pre' | 'post'): Checkpoint => ({ id: `cp_${phase}`, session: 's', call_id: 'c', phase, time: '2026-01-01T00:00:00Z' });

describe('sessionState', () => {
  it.each([
    [{ status: 'active' as const }, 'active'],
    [{ status: 'active' as const, idle: true }, 'idle'],
    [{ status: 'ended' as const, idle: true }, 'ended'],
    [{ status: 'killed' as const }, 'killed'],
  ])('%j → %s', (s, want) => expect(sessionState(s)).toBe(want));
});

describe('transportLabel', () => {
  it('names the four transports and passes unknown ones through', () => {
    expect(transportLabel('hook')).toContain('own tools');
    expect(transportLabel('http-stateless')).toContain('stateless');
    expect(transportLabel('stdio')).toContain('bridge');
    expect(transportLabel('carrier-pigeon')).toBe('carrier-pigeon');
  });
  it('names each route of a session reached by several', () => {
    expect(transportLabel('stdio+hook')).toBe('stdio, through the gatehouse mcp bridge; and hook, the agent’s own tools');
    expect(transportLabel('stdio+hook+http')).toBe('stdio, through the gatehouse mcp bridge; hook, the agent’s own tools; and MCP over HTTP');
  });
});

describe('confinedHelp', () => {
  it.each([
    [{ confined: true, status: 'active' as const }, 'the agent and everything it starts run in a sandbox (gatehouse run)'],
    [{ confined: true, status: 'ended' as const }, 'the agent and everything it started ran in a sandbox (gatehouse run)'],
    [{ confined: true, status: 'killed' as const }, 'the agent and everything it started ran in a sandbox (gatehouse run)'],
    [{ confined: false, status: 'active' as const }, null],
    [{ status: 'ended' as const }, null],
  ])('%j → %s', (s, want) => expect(confinedHelp(s)).toBe(want));
});

describe('callTools', () => {
  it('a read-only call gets no diff or undo, whatever the daemon sent', () => {
    for (const tool of ['read_file', 'list_dir', 'search_files', 'fetch_url', 'ask_human']) {
      expect(callTools(tool, [cp('pre'), cp('post')])).toEqual({ diff: false, rollbackTo: null, undo: false });
    }
  });
  it('a call with both checkpoints gets diff, rollback and undo', () => {
    const t = callTools('write_file', [cp('pre'), cp('post')]);
    expect(t.diff && t.undo).toBe(true);
    expect(t.rollbackTo?.id).toBe('cp_post');
  });
  it('a call with only its before-checkpoint can be rolled back to, not diffed or undone', () => {
    expect(callTools('run_command', [cp('pre')])).toEqual({ diff: false, rollbackTo: cp('pre'), undo: false });
  });
  it('no checkpoints, no tools', () => {
    expect(callTools('run_command', [])).toEqual({ diff: false, rollbackTo: null, undo: false });
  });
});

describe('agentsQuiet', () => {
  it('says agents are working when a session is live, whatever else is known', () => {
    expect(agentsQuiet(2, null)).toBe('working');
    expect(agentsQuiet(1, false)).toBe('working');
  });
  it('no agent yet only when no session ever started', () => {
    expect(agentsQuiet(0, false)).toBe('none-yet');
    expect(agentsQuiet(0, true)).toBe('none-now');
  });
  it('says nothing until it knows', () => {
    expect(agentsQuiet(undefined, true)).toBe('unknown');
    expect(agentsQuiet(0, null)).toBe('unknown');
  });
});

describe('runCalls', () => {
  const at = (call: string, phase: 'pre' | 'post', time: string): Checkpoint => ({ id: `${call}-${phase}`, session: 's', call_id: call, phase, time });
  it('makes one row per confined run, at its checkpoint before, and none for calls', () => {
    const rows = runCalls([
      at('c_1', 'pre', '2026-01-01T00:00:01Z'),
      at('run-b', 'post', '2026-01-01T00:00:09Z'),
      at('run-b', 'pre', '2026-01-01T00:00:05Z'),
      at('run-a', 'pre', '2026-01-01T00:00:02Z'),
    ]);
    expect(rows.map((r) => [r.id, r.tool, r.time])).toEqual([
      ['run-a', 'run', '2026-01-01T00:00:02Z'],
      ['run-b', 'run', '2026-01-01T00:00:05Z'],
    ]);
  });
  it('offers the diff and the undo once the run has both checkpoints', () => {
    const cps = [at('run-a', 'pre', '2026-01-01T00:00:02Z'), at('run-a', 'post', '2026-01-01T00:00:03Z')];
    const [row] = runCalls(cps);
    expect(callTools(row!.tool, cps)).toMatchObject({ diff: true, undo: true });
  });
});
