import { describe, expect, it } from 'vitest';
import { describeRule, describeSnippet, parseRule } from './rulesummary';

describe('parseRule', () => {
  it('reads the snippets the daemon writes', () => {
    const r = parseRule('[[rule]]\nid = "allow-git-add"\naction = "allow"\ntool = "run_command"\nbinary = "/usr/bin/git"\nargs = ["add", "-A"]\nreason = "approved always"\n');
    expect(r).toEqual({ id: 'allow-git-add', action: 'allow', tool: 'run_command', binary: '/usr/bin/git', args: ['add', '-A'], reason: 'approved always' });
  });
  it('reads escapes, ports and comments', () => {
    const r = parseRule('[[rule]]\ntool = "network"\ndomains = ["a\\"b", \'lit\\n\']\nports = [8443, 80]  # two\nreason = "\\u202e"');
    expect(r).toEqual({ tool: 'network', domains: ['a"b', 'lit\\n'], ports: [8443, 80], reason: '\u202e' });
  });
  it.each([['[[effect]]\nid = "x"'], ['[[rule]]\nbinary = /usr/bin/git'], ['[[rule]]\nunknown = "x"'], ['[[rule]]\nargs = ["a"'], ['[[rule]]\nid = "x" y'], ['[[rule]]\nid = "\\q"']])(
    'refuses %j',
    (text) => expect(parseRule(text)).toBeNull(),
  );
});

describe('describeRule', () => {
  it.each([
    [{ binary: '/usr/bin/git', args: ['add'] }, 'runs of “/usr/bin/git” whose arguments start with “add”'],
    [{ binary: '/usr/bin/make' }, 'runs of “/usr/bin/make” with any arguments'],
    [{ tool: 'write_file', paths: ['/ws/src/main.go'] }, 'write_file calls on “/ws/src/main.go”'],
    [{ paths: ['/ws/**'] }, 'calls on “/ws/**”'],
    [{ domains: ['pkgs.example.test'] }, 'fetches from “pkgs.example.test”'],
    [{ tool: 'network', domains: ['pkgs.example.test'] }, 'connections from any command to “pkgs.example.test” on ports 443 and 80'],
    [{ tool: 'network', domains: ['a.example.test', '*.b.example.test'], ports: [8443] }, 'connections from any command to “a.example.test” or “*.b.example.test” on port 8443'],
    [{ args: ['status'] }, 'commands whose arguments start with “status”'],
    [{ tool: 'list_dir' }, 'every list_dir call'],
    [{}, 'every call'],
  ])('%j', (r, want) => expect(describeRule(r)).toBe(want));

  it('describes a snippet, or says nothing for text it cannot read', () => {
    expect(describeSnippet('[[rule]]\nbinary = "/usr/bin/go"\nargs = ["test"]\n')).toBe('runs of “/usr/bin/go” whose arguments start with “test”');
    expect(describeSnippet('not toml')).toBeNull();
    expect(describeSnippet(undefined)).toBeNull();
  });
});
