import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../api/types';
import { callTarget, family, summarize } from './summary';

const ev = (kind: string, payload: Record<string, unknown>): AuditEvent => ({ seq: 1, time: '', session: 's', call_id: 'c', kind, actor: 'system', payload, prev_hash: '', hash: '' });

describe('summarize', () => {
  it('shows argv with quoting for spaced args', () => {
    expect(summarize(ev('tool.call', { tool: 'run_command', args: { argv: ['sh', '-c', 'echo hi'] } }))).toBe('run_command sh -c "echo hi"');
    expect(summarize(ev('tool.call', { tool: 'read_file', args: { path: 'a.txt' } }))).toBe('read_file a.txt');
  });
  it('covers decisions and approvals', () => {
    expect(summarize(ev('policy.decision', { tool: 'run_command', verdict: 'ask', reason: 'not on the list' }))).toBe('ask run_command — not on the list');
    expect(summarize(ev('approval.decided', { status: 'denied', scope: 'once', by: 'human', message: 'no' }))).toBe('denied by human: no');
    expect(summarize(ev('approval.decided', { status: 'allowed', scope: 'session', by: 'human' }))).toBe('allowed (session) by human');
    expect(summarize(ev('approval.requested', { kind: 'call', tool: 'run_command', argv: ['git', 'push'] }))).toBe('waiting for approval: run_command git push');
    expect(summarize(ev('approval.requested', { kind: 'network', tool: 'network', domain: 'pkgs.example.test', port: 443, argv: ['curl', 'https://pkgs.example.test/'] }))).toBe(
      'waiting for approval: connect to pkgs.example.test:443 (curl https://pkgs.example.test/)',
    );
    expect(summarize(ev('approval.requested', { kind: 'effect', tool: 'run_command', changes: [{}, {}], argv: ['rm', '-rf', 'src'] }))).toBe('waiting for approval: apply 2 changes of rm -rf src');
    expect(summarize(ev('approval.requested', { kind: 'effect', tool: 'run_command', changes: [{}], argv: ['rm', 'a'] }))).toBe('waiting for approval: apply 1 change of rm a');
    expect(summarize(ev('approval.requested', { kind: 'workspace', tool: 'workspace', paths: ['/home/u/src/app'] }))).toBe('waiting for approval: work in /home/u/src/app');
    expect(summarize(ev('approval.overridden', { allow: true, device: 'Phone/1', exposure: 'x_1', by: 'human' }))).toBe(
      'allow from Phone/1 not used: decided on the computer',
    );
    expect(summarize(ev('approval.withdrawn', { status: 'withdrawn', message: 'the agent cancelled the call before anyone answered' }))).toBe(
      'withdrawn: the agent cancelled the call before anyone answered',
    );
  });
  it('covers exec and results', () => {
    expect(summarize(ev('exec.finished', { exit_code: 0, duration_ms: 12, stdout_bytes: 5, stderr_bytes: 0 }))).toBe('exit 0 in 12 ms, 5 B out, 0 B err');
    expect(summarize(ev('exec.finished', { killed: true, kill_reason: 'kill switch', duration_ms: 3 }))).toContain('killed (kill switch)');
    expect(summarize(ev('tool.result', { tool: 'run_command', is_error: false, bytes: 4, preview: 'hi\nthere' }))).toBe('run_command ok, 4 B: hi there');
    expect(summarize(ev('tool.result', { tool: 'read_file', args: { path: 'a.txt' }, verdict: 'allow', is_error: false, bytes: 2, preview: 'hi' }))).toBe('read_file a.txt ok, 2 B: hi');
    expect(summarize(ev('tool.result', { tool: 'run_command', is_error: true, bytes: 9, preview: 'exit code 0', outcome: { outcome: 'discarded', by: 'person', message: 'keep it' } }))).toBe(
      'run_command discarded by you: keep it, 9 B: exit code 0',
    );
    expect(summarize(ev('tool.cleared', { tool: 'read_file', native: 'Claude Code Read', outcome: { outcome: 'cleared' } }))).toBe('read_file cleared for Claude Code Read');
  });
  it.each([
    [ev('run.started', { run: 'r1', agent: 'claude', argv: ['/usr/bin/claude', '--resume', 'fix the tests'], cwd: '/home/u/app', workspaces: ['/home/u/app'] }), 'started confined: /usr/bin/claude --resume "fix the tests" in /home/u/app'],
    [ev('run.started', { run: 'r1', argv: ['make'], workspaces: ['/home/u/app'] }), 'started confined: make in /home/u/app'],
    [ev('run.started', { run: 'r1', argv: ['make'], cwd: '/home/u/app', backend: 'landlock' }), 'started confined: make in /home/u/app [landlock]'],
    [ev('run.ended', { run: 'r1', exit: 0 }), 'confined agent exited with status 0'],
    [ev('run.ended', { run: 'r1', exit: 7 }), 'confined agent exited with status 7'],
    [ev('run.ended', { run: 'r1', exit: -1 }), 'confined agent ended without a status (gatehouse run went away)'],
  ])('confined runs: %#', (e, want) => expect(summarize(e)).toBe(want));
  it('falls back to reason or fields for unknown kinds', () => {
    expect(summarize(ev('system.kill', { reason: 'stopped' }))).toBe('stopped');
    expect(summarize(ev('x.y', { a: 1, b: 'two' }))).toBe('a=1 b=two');
    expect(summarize({ ...ev('x.y', {}), payload: null })).toBe('');
  });
  it('family and callTarget', () => {
    expect(family('tool.call')).toBe('tool');
    expect(family('odd')).toBe('odd');
    expect(callTarget('fetch_url', { url: 'https://x' })).toBe('fetch_url https://x');
    expect(callTarget('list_dir', null)).toBe('list_dir');
  });
});
