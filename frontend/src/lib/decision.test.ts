import { describe, expect, it } from 'vitest';
import { decisionBody, goneNote, refusal, WITHDRAWN_NOTE } from './decision';

const rule = '[[rule]]\nid = "allow-go-test"\naction = "allow"\ntool = "run_command"\nbinary = "/usr/bin/go"\nargs = ["test"]\n';

describe('decisionBody', () => {
  it('a plain allow or deny', () => {
    expect(decisionBody({ decision: 'allow', scope: 'once' })).toEqual({ decision: 'allow', scope: 'once', message: '' });
    expect(decisionBody({ decision: 'deny', scope: 'once', message: 'use make test' })).toEqual({ decision: 'deny', scope: 'once', message: 'use make test' });
  });
  it('sends the always rule only when the person edited it', () => {
    expect(decisionBody({ decision: 'allow', scope: 'always', shownRule: rule, editedRule: rule })).not.toHaveProperty('rule');
    expect(decisionBody({ decision: 'allow', scope: 'always', shownRule: rule, editedRule: rule.replace(/\n/g, '\r\n') + '  ' })).not.toHaveProperty('rule');
    const edited = rule.replace('args = ["test"]', 'args = ["test", "./..."]');
    expect(decisionBody({ decision: 'allow', scope: 'always', shownRule: rule, editedRule: edited }).rule).toBe(edited.trim());
  });
  it('never sends a rule with another scope or a deny', () => {
    expect(decisionBody({ decision: 'allow', scope: 'session', shownRule: rule, editedRule: 'x' })).not.toHaveProperty('rule');
    expect(decisionBody({ decision: 'deny', scope: 'always', shownRule: rule, editedRule: 'x' })).not.toHaveProperty('rule');
  });
  it('sends staged paths with an apply only', () => {
    expect(decisionBody({ decision: 'allow', scope: 'once', staged: ['a.go'] }).staged).toEqual(['a.go']);
    expect(decisionBody({ decision: 'allow', scope: 'once', staged: [] })).not.toHaveProperty('staged');
    expect(decisionBody({ decision: 'deny', scope: 'once', staged: ['a.go'] })).not.toHaveProperty('staged');
  });
});

describe('refusal', () => {
  it.each([
    [410, 'withdrawn'],
    [404, 'gone'],
    [400, 'invalid'],
    [500, 'failed'],
    [0, 'failed'],
  ])('%i → %s', (status, want) => expect(refusal(status)).toBe(want));
});

describe('goneNote', () => {
  it.each([
    ['approval.withdrawn', { status: 'withdrawn', by: 'system:withdrawn' }, WITHDRAWN_NOTE],
    ['approval.decided', { status: 'withdrawn', by: 'system:withdrawn' }, WITHDRAWN_NOTE],
    ['approval.decided', { status: 'withdrawn', by: 'system:session-ended' }, 'withdrawn: the session ended'],
    ['approval.expired', { reason: 'daemon restarted' }, 'expired: nobody answered in time, so it was denied'],
    ['approval.decided', { status: 'expired', by: 'system:timeout' }, 'expired: nobody answered in time, so it was denied'],
    ['approval.decided', { status: 'denied', by: 'human' }, 'denied elsewhere (the CLI, a notification or another window)'],
    ['approval.decided', { status: 'answered', by: 'human' }, 'answered elsewhere (the CLI, a notification or another window)'],
    ['approval.decided', { status: 'allowed', by: 'human' }, 'allowed elsewhere (the CLI, a notification or another window)'],
    ['approval.decided', { status: 'denied', by: 'system:kill' }, null],
    ['approval.decided', { status: 'denied', by: 'system:quit' }, 'decided by system:quit'],
    ['approval.decided', {}, null],
  ])('%s %j', (kind, p, want) => expect(goneNote(kind, p)).toBe(want));
});
