import { describe, expect, it } from 'vitest';
import type { PolicyRule } from '../api/types';
import { EXAMPLE_POLICY, argsPreview, matcher, stageGroups, uncommentedExample } from './policyview';

const r = (id: string, stage: PolicyRule['stage'], extra: Partial<PolicyRule> = {}): PolicyRule => ({ id, action: 'allow', source: 'builtin', stage, ...extra });

describe('stageGroups', () => {
  it('keeps the API’s order and numbers rules across stages', () => {
    const g = stageGroups([r('ask-human', 'always'), r('unknown-tool', 'always'), r('mine', 'user', { source: 'user' }), r('workspace-read', 'baseline'), r('interpreter', 'risk'), r('plan-mode', 'mode')]);
    expect(g.map((x) => x.stage)).toEqual(['always', 'user', 'baseline', 'risk', 'mode']);
    expect(g.flatMap((x) => x.rules.map((y) => `${y.n}:${y.rule.id}`))).toEqual(['1:ask-human', '2:unknown-tool', '3:mine', '4:workspace-read', '5:interpreter', '6:plan-mode']);
    expect(g[1]!.title).toBe('Your rules and session grants');
  });
  it('shows the person’s stage even when they have no rules', () => {
    const g = stageGroups([r('ask-human', 'always'), r('workspace-read', 'baseline')]);
    expect(g.map((x) => [x.stage, x.rules.length])).toEqual([
      ['always', 1],
      ['user', 0],
      ['baseline', 1],
    ]);
  });
  it('puts the organisation’s rules before the person’s, even when the person has none', () => {
    const g = stageGroups([r('ask-human', 'always'), r('org-no-curl', 'managed', { action: 'deny', source: 'managed' }), r('workspace-read', 'baseline')]);
    expect(g.map((x) => [x.stage, x.rules.length])).toEqual([
      ['always', 1],
      ['managed', 1],
      ['user', 0],
      ['baseline', 1],
    ]);
    expect(g[1]!.title).toBe('Set by your organisation');
  });
  it('a daemon that sends no stage gets one plain group', () => {
    const g = stageGroups([r('a', undefined), r('b', undefined)]);
    expect(g).toHaveLength(1);
    expect(g[0]!.title).toBe('Rules');
  });
});

describe('argsPreview', () => {
  const args = Array.from({ length: 43 }, (_, i) => `cmd${i}`);
  it('cuts long lists and counts the rest', () => {
    const p = argsPreview(args, false);
    expect(p.shown).toHaveLength(8);
    expect(p.more).toBe(35);
  });
  it('shows everything when expanded, or when short', () => {
    expect(argsPreview(args, true).more).toBe(0);
    expect(argsPreview(['a', 'b'], false)).toEqual({ shown: ['a', 'b'], more: 0 });
  });
});

describe('matcher', () => {
  it('network rules show their ports, with the default when none', () => {
    expect(matcher({ id: 'n', action: 'allow', source: 'user', tool: 'network', domains: ['pkgs.example.test'] })).toBe('tool network · domains pkgs.example.test · ports 443, 80');
    expect(matcher({ id: 'n', action: 'allow', source: 'user', tool: 'network', domains: ['db.example.test'], ports: [5432] })).toBe('tool network · domains db.example.test · ports 5432');
  });
});

describe('EXAMPLE_POLICY', () => {
  it('is comments only, so saving it unchanged changes nothing', () => {
    for (const line of EXAMPLE_POLICY.split('\n')) expect(line === '' || line.startsWith('#')).toBe(true);
  });
  it('shows a command rule, a network rule with ports and an effect rule', () => {
    const t = uncommentedExample();
    expect(t).toContain('tool = "network"');
    expect(t).toContain('ports = [8443]');
    expect(t).toContain('[[effect]]');
    expect(t.startsWith('[[rule]]')).toBe(true);
    expect(t).not.toMatch(/^#/m);
  });
});
