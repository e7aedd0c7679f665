import { describe, expect, it } from 'vitest';
import { callsSummary, endOf, outcomeLabel, tallyText, type CallEnd } from './outcome';

describe('outcomeLabel', () => {
  // The same words as the CLI's (session.End.Label, TestEndLabel).
  const cases: [CallEnd, string][] = [
    [{ outcome: 'ok' }, 'ok'],
    [{ outcome: 'applied' }, 'applied'],
    [{ outcome: 'applied', held: true }, 'applied after your approval'],
    [{ outcome: 'cleared' }, "cleared; the agent's own tool ran it"],
    [{ outcome: 'failed', exit_code: 2 }, 'failed (exit 2)'],
    [{ outcome: 'failed', exit_code: 2, applied: true }, 'failed (exit 2), its changes applied'],
    [{ outcome: 'failed', killed: 'timeout', exit_code: 0 }, 'failed (stopped: timeout)'],
    [{ outcome: 'failed' }, 'failed'],
    [{ outcome: 'denied', by: 'person', message: 'not now' }, 'denied by you: not now'],
    [{ outcome: 'denied', by: 'policy' }, 'denied by policy'],
    [{ outcome: 'denied', by: 'timeout' }, 'denied: nobody decided in time'],
    [{ outcome: 'denied', by: 'agent' }, 'denied: the agent cancelled it'],
    [{ outcome: 'discarded', by: 'person', message: ' keep history ' }, 'discarded by you: keep history'],
    [{ outcome: 'discarded', by: 'person' }, 'discarded by you'],
    [{ outcome: 'discarded', by: 'policy', message: 'ignored' }, 'discarded by policy'],
    [{ outcome: 'discarded', by: 'gatehouse' }, 'discarded by Gatehouse'],
    [{ outcome: 'discarded', by: 'kill_switch' }, 'discarded: your kill switch stopped it'],
    [{ outcome: 'discarded' }, 'discarded by Gatehouse'],
    [{ outcome: 'rolled_back', by: 'person', message: 'no' }, 'rolled back by you: no'],
    [{ outcome: 'rolled_back', by: 'policy' }, 'rolled back by policy'],
    [{ outcome: 'refused' }, 'refused by Gatehouse'],
    [{ outcome: 'stopped', by: 'kill_switch' }, 'stopped by your kill switch'],
    [{ outcome: 'something new' }, 'something new'],
  ];
  it.each(cases)('%j → %s', (end, want) => expect(outcomeLabel(end)).toBe(want));
});

describe('endOf', () => {
  it('reads an outcome object and nothing else', () => {
    expect(endOf({ outcome: 'applied', held: true })).toEqual({ outcome: 'applied', held: true });
    expect(endOf('applied')).toBeNull();
    expect(endOf(undefined)).toBeNull();
    expect(endOf({ outcome: '' })).toBeNull();
  });
});

describe('session summaries add up', () => {
  const cases: [Parameters<typeof callsSummary>[0], string, string][] = [
    [{ calls: 5, asked: 2, status: 'ended', outcomes: { ok: 2, applied: 1, discarded: 1, failed: 1 } }, '2 ok, 1 applied, 1 failed, 1 discarded', '5 calls: 2 ok, 1 applied, 1 failed, 1 discarded. 2 of them asked you first.'],
    [{ calls: 2, asked: 0, status: 'active', outcomes: { ok: 1 } }, '1 ok, 1 running or waiting', '2 calls: 1 ok, 1 running or waiting.'],
    [{ calls: 3, asked: 1, status: 'ended', outcomes: { denied: 1, stopped: 1 } }, '1 denied, 1 stopped by the kill switch, 1 never finished', '3 calls: 1 denied, 1 stopped by the kill switch, 1 never finished. 1 of them asked you first.'],
    [{ calls: 1, asked: 1, status: 'ended', outcomes: { rolled_back: 1 } }, '1 rolled back', '1 call: 1 rolled back. It asked you first.'],
    [{ calls: 0, asked: 1, status: 'ended', outcomes: {} }, '', '0 calls. Gatehouse asked you once.'],
    [{ calls: 1, asked: 3, status: 'ended', outcomes: { ok: 1 } }, '1 ok', '1 call: 1 ok. Gatehouse asked you 3 times.'],
    // A session recorded before outcomes were counted, or by an older daemon.
    [{ calls: 4, asked: 0, status: 'ended' }, '', '4 calls.'],
  ];
  it.each(cases)('%j', (s, tally, line) => {
    expect(tallyText(s)).toBe(tally);
    expect(callsSummary(s)).toBe(line);
  });
});
