import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../api/types';
import { NO_SESSION_WHY, cardSummary, choices, grantedPlace, headline, hiddenOnCard, splitRisks, viaLine } from './cardtext';

const card = (over: Partial<ApprovalRequest>): ApprovalRequest => ({
  id: 'a_1',
  kind: 'call',
  session: 's_1',
  call_id: 'c_1',
  actor: 'agent:claude',
  tool: 'run_command',
  reason: 'any other command asks',
  rule: 'command',
  created_at: '2026-01-01T00:00:00Z',
  expires_at: '2026-01-01T00:02:00Z',
  ...over,
});

describe('choices', () => {
  it('a command card says what the session and always rules cover', () => {
    const c = choices(
      card({
        argv: ['git', 'add', 'src/x.go'],
        session_rule: '[[rule]]\nid = "allow-git-add"\naction = "allow"\ntool = "run_command"\nbinary = "/usr/bin/git"\nargs = ["add"]\n',
        always_rule: '[[rule]]\nid = "allow-git-add"\naction = "allow"\ntool = "run_command"\nbinary = "/usr/bin/git"\nargs = ["add"]\nreason = "approved always"\n',
      }),
    );
    expect(c.allow).toBe('Allow once');
    expect(c.session).toEqual({ offered: true, help: 'For this session: until it ends, runs of “/usr/bin/git” whose arguments start with “add” run without asking.' });
    expect(c.always?.help).toContain('runs of “/usr/bin/git” whose arguments start with “add”');
    expect(c.always?.help).toContain('written to your policy file');
  });

  it('no_session_scope withdraws "for this session" and says why', () => {
    const c = choices(card({ no_session_scope: true, session_rule: '[[rule]]\nbinary = "/usr/bin/git"\n' }));
    expect(c.session).toEqual({ offered: false, why: NO_SESSION_WHY });
  });

  it('a card with no rule offers always when the daemon says what it keeps', () => {
    const note = 'Always: every command of every session sees /home/me/notes read-only from now on (added to [sandbox] read_only in your config file).';
    expect(choices(card({ always_note: note })).always?.help).toBe(note);
  });

  it('no always answer without an always rule', () => {
    expect(choices(card({})).always).toBeNull();
  });

  it('a network card names the command, the domain and the port', () => {
    const c = choices(
      card({
        kind: 'network',
        tool: 'network',
        domain: 'pkgs.example.test',
        port: 443,
        argv: ['curl', '-sS', 'https://pkgs.example.test/'],
        binary: '/usr/bin/curl',
        always_rule: '[[rule]]\nid = "allow-network-pkgs.example.test"\naction = "allow"\ntool = "network"\ndomains = ["pkgs.example.test"]\nreason = "approved always"\n',
      }),
    );
    expect(c.allowHelp).toBe('Once: this run of curl may connect to pkgs.example.test:443; the next command that wants it asks again.');
    expect(c.session).toEqual({ offered: true, help: 'For this session: until it ends, every command in this session may connect to pkgs.example.test on ports 443 and 80.' });
    expect(c.always?.help).toContain('connections from any command to “pkgs.example.test” on ports 443 and 80');
    expect(c.denyHelp).toContain('curl cannot connect to pkgs.example.test:443');
  });

  it('a network card on another port grants that port only', () => {
    const c = choices(card({ kind: 'network', domain: 'db.example.test', port: 5432, argv: ['psql'] }));
    expect(c.session?.offered && c.session.help).toContain('db.example.test:5432');
  });

  it('an effect card applies or discards, with no session or always', () => {
    const c = choices(card({ kind: 'effect', staged: true, changes: [{ path: 'src', op: 'delete', kind: 'dir' }] }));
    expect([c.allow, c.deny, c.session, c.always]).toEqual(['Apply', 'Discard', null, null]);
    expect(c.denyHelp).toContain('never touched');
  });

  it('an effect card of a run that could not be staged says the changes are in the workspace already', () => {
    const c = choices(card({ kind: 'effect', findings: ['0 files created, 0 modified, 25 deleted', 'this sandbox cannot stage commands, so the changes are in the workspace already; Deny rolls them back'] }));
    expect(c.allow).toBe('Apply');
    expect(c.denyHelp).toContain('roll the changes back');
    expect(c.denyHelp).not.toContain('never touched');
  });

  it('a workspace card names the project, offers always as a root, and no session answer', () => {
    const req = card({ kind: 'workspace', tool: 'workspace', paths: ['/home/me/src/other'] });
    const c = choices(req);
    expect(c.allowHelp).toContain('/home/me/src/other');
    expect(c.session).toBeNull();
    expect(c.always?.help).toContain('workspace roots');
    expect(headline(req)).toBe('started in /home/me/src/other, which is not one of your workspaces');
  });
  it('a limit card says what allow and deny do to the budget', () => {
    const c = choices(card({ kind: 'limit', tool: 'limit' }));
    expect(c.allowHelp).toContain('double');
    expect(c.denyHelp).toContain('end the session');
  });
});

describe('headline, via and risks', () => {
  it('headlines', () => {
    expect(headline(card({ kind: 'network', domain: 'pkgs.example.test', port: 8443 }))).toBe('wants to connect to pkgs.example.test:8443');
    expect(headline(card({}))).toBe('wants');
  });
  it('says when a call came from the agent’s own tool', () => {
    expect(viaLine(card({ via: 'hook', native: 'Claude Code Bash' }))).toBe('From the agent’s own tool: Claude Code Bash (not a Gatehouse tool)');
    expect(viaLine(card({ via: 'hook' }))).toContain('agent’s own tools');
    expect(viaLine(card({}))).toBeNull();
  });
  it('puts drift apart', () => {
    const r = splitRisks([
      { kind: 'interpreter', detail: '' },
      { kind: 'drift', detail: 'reads ~/.aws/credentials, which the request never mentions' },
    ]);
    expect(r.drift.map((x) => x.kind)).toEqual(['drift']);
    expect(r.other.map((x) => x.kind)).toEqual(['interpreter']);
  });
  it('grantedPlace', () => {
    expect(grantedPlace('a.example.test', 80)).toBe('a.example.test on ports 443 and 80');
    expect(grantedPlace('a.example.test', 22)).toBe('a.example.test:22');
  });
});

describe('hiddenOnCard', () => {
  it('finds hidden characters in argv, paths, changes and diffs, once each', () => {
    const h = hiddenOnCard(
      card({
        argv: ['sh', '-c', 'echo "ok" \u2067# \u2066; rm -rf .\u2069\u2066'],
        paths: ['src/\u202Etxt.exe'],
        changes: [{ path: 'a\u200Bb', op: 'create', kind: 'file' }],
        diff: '+line\n+evil\u202E\n',
      }),
    );
    expect(h.map((x) => x.token)).toEqual(['⟨U+202E⟩', '⟨U+200B⟩', '⟨U+2067⟩', '⟨U+2066⟩', '⟨U+2069⟩']);
  });
  it('a multi-line script alone is not flagged', () => {
    expect(hiddenOnCard(card({ argv: ['sh', '-c', 'set -e\n\tgo test ./...'] }))).toEqual([]);
  });
});

describe('cardSummary', () => {
  it('names who and what, briefly', () => {
    expect(cardSummary(card({ argv: ['git', 'push'] }), 'claude-code')).toBe('claude-code: git push');
    expect(cardSummary(card({ kind: 'network', domain: 'pkgs.example.test', port: 443 }), '')).toBe('claude: pkgs.example.test:443');
    expect(cardSummary(card({ kind: 'question', question: 'Which port?' }), 'codex')).toBe('codex: question “Which port?”');
    expect(cardSummary(card({ tool: 'write_file', paths: ['/ws/a.go'] }), 'x')).toBe('x: /ws/a.go');
    expect(cardSummary(card({ argv: ['echo', 'y'.repeat(200)] }), 'x')).toHaveLength(93);
  });
});
