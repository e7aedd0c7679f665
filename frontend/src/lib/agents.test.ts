import { describe, expect, it } from 'vitest';
import type { AgentStatus } from '../api/types';
import { actionPath, agentRows, resultSentence } from './agents';

const scope = (s: 'user' | 'system', wired: boolean, recorded = wired) => ({
  agent: 'claude',
  scope: s,
  wired,
  recorded,
  files: [s === 'user' ? '/home/me/.claude/settings.json' : '/etc/claude-code/managed-settings.json'],
});
const agent = (user: ReturnType<typeof scope>, system: ReturnType<typeof scope>): AgentStatus => ({
  name: 'claude',
  title: 'Claude Code',
  installed: user.wired || system.wired,
  where: [],
  user,
  system,
});

describe('agentRows', () => {
  it('an agent with nothing installed offers Install into the user config', () => {
    const [r] = agentRows([agent(scope('user', false), scope('system', false))]);
    expect(r).toMatchObject({ wired: false, label: 'Not wired', action: 'install', scope: 'user' });
    expect(r!.where).toEqual(['/home/me/.claude/settings.json']);
  });

  it('a user install offers Remove for the user scope', () => {
    const [r] = agentRows([agent(scope('user', true), scope('system', false))]);
    expect(r).toMatchObject({ wired: true, label: 'Wired (user config)', action: 'uninstall', scope: 'user' });
  });

  it('a system install wins and says removing it needs root', () => {
    const [r] = agentRows([agent(scope('user', true), scope('system', true))]);
    expect(r).toMatchObject({ wired: true, action: 'uninstall', scope: 'system' });
    expect(r!.note).toContain('sudo gatehouse install claude --system --uninstall');
  });

  it('a recorded install whose hooks were removed by hand is not shown as wired', () => {
    const [r] = agentRows([agent(scope('user', false, true), scope('system', false))]);
    expect(r).toMatchObject({ wired: false, action: 'uninstall' });
    expect(r!.label).toContain('hooks missing');
  });
});

describe('actionPath', () => {
  it('escapes the name', () => {
    expect(actionPath({ name: 'claude', action: 'install' })).toBe('/api/v1/agents/claude/install');
    expect(actionPath({ name: 'a/b', action: 'uninstall' })).toBe('/api/v1/agents/a%2Fb/uninstall');
  });
});

describe('resultSentence', () => {
  const r = (outcomes: string[]) => ({
    agent: 'claude',
    scope: 'user' as const,
    changes: outcomes.map((o, i) => ({ path: `/f${i}`, outcome: o as 'unchanged' })),
  });
  it('says when nothing changed', () => {
    expect(resultSentence('Claude Code', true, r(['unchanged', 'unchanged']))).toBe('Claude Code was already wired; nothing changed.');
  });
  it('names the files an install wrote', () => {
    expect(resultSentence('Claude Code', true, r(['written', 'created']))).toContain('/f0, /f1');
  });
  it('says which files were edited since install', () => {
    expect(resultSentence('Claude Code', false, r(['restored', 'stripped']))).toContain('/f1 changed since install');
  });
  it('a clean remove restores the files', () => {
    expect(resultSentence('Claude Code', false, r(['restored', 'removed']))).toContain('as they were before install');
  });
});
