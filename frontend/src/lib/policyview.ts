// The policy screen's table: the rules in the order the daemon applies
// them (the API already lists them so), in runs by stage, each stage
// explained.

import type { PolicyRule, Stage } from '../api/types';

export const STAGES: Record<Stage, { title: string; help: string }> = {
  always: { title: 'Always first', help: 'Asking the person is always allowed; a tool Gatehouse does not know is refused.' },
  managed: { title: 'Set by your organisation', help: 'From the managed policy your organisation installed (root-owned, /etc/gatehouse/policy.toml). Nothing below it — your rules, session and always grants, the workspace, the mode — loosens its asks and denies.' },
  user: { title: 'Your rules and session grants', help: 'From your policy file and the cards you answered “for this session”; the most specific match wins, and at equal specificity deny beats ask beats allow.' },
  baseline: { title: 'The mode’s defaults', help: 'What happens when none of your rules matched.' },
  risk: { title: 'Risks', help: 'Checks that turn an allow into an ask; only a rule of yours that names the risky thing literally lets it through.' },
  workspace: { title: 'The workspace’s rules', help: 'From .gatehouse/policy.toml in the workspace; the code’s own rules can only tighten, never allow more.' },
  mode: { title: 'Mode limits', help: 'Plan mode’s read-only ceiling, and unattended mode turning every ask into a deny.' },
};

export interface StageGroup {
  stage: Stage | '';
  title: string;
  help: string;
  /** Rules with their place in the order (1-based). */
  rules: { n: number; rule: PolicyRule }[];
}

/** Consecutive runs of one stage, in the API's order (never re-sorted). */
export function stageGroups(rules: readonly PolicyRule[]): StageGroup[] {
  const out: StageGroup[] = [];
  rules.forEach((rule, i) => {
    const stage = rule.stage ?? '';
    let g = out[out.length - 1];
    if (!g || g.stage !== stage) {
      const info = stage ? STAGES[stage] : undefined;
      g = { stage, title: info?.title ?? (stage || 'Rules'), help: info?.help ?? '', rules: [] };
      out.push(g);
    }
    g.rules.push({ n: i + 1, rule });
  });
  // Your own stage is shown even when empty, so its place in the order is clear.
  if (rules.some((r) => r.stage) && !out.some((g) => g.stage === 'user')) {
    const at = out.findIndex((g) => g.stage !== 'always' && g.stage !== 'managed');
    out.splice(at < 0 ? out.length : at, 0, { stage: 'user', ...STAGES.user, rules: [] });
  }
  return out;
}

export const ARGS_PREVIEW = 8;

/** The args shown before "(+N more)". */
export function argsPreview(args: readonly string[], expanded: boolean): { shown: string[]; more: number } {
  if (expanded || args.length <= ARGS_PREVIEW) return { shown: [...args], more: 0 };
  return { shown: args.slice(0, ARGS_PREVIEW), more: args.length - ARGS_PREVIEW };
}

function list(v: string | string[] | undefined): string {
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
}

/** What the rule matches, args aside (they are shown on their own). */
export function matcher(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.tool) parts.push(`tool ${list(r.tool)}`);
  if (r.binary) parts.push(`binary ${list(r.binary)}`);
  if (typeof r.args === 'string' && r.args) parts.push(`args ${r.args}`);
  if (r.paths && r.paths.length) parts.push(`paths ${list(r.paths)}`);
  if (r.domains && r.domains.length) parts.push(`domains ${list(r.domains)}`);
  if (r.ports?.length) parts.push(`ports ${r.ports.join(', ')}`);
  else if (r.tool === 'network') parts.push('ports 443, 80');
  return parts.join(' · ');
}

// Every line is a comment, so the file says nothing until the person
// takes a block in; saved as it is, it changes nothing.
export const EXAMPLE_POLICY = `# Your Gatehouse policy. Every line here is a comment: remove the "# "
# in front of a block to use it, then Save (the daemon checks the file first).
# Your rules apply before the built-in defaults; the table above shows the order.

# A command that may run without a card:
# [[rule]]
# id = "allow-make-test"
# action = "allow"                 # allow | ask | deny
# tool = "run_command"
# binary = "/usr/bin/make"
# args = ["test"]                  # a prefix of the arguments after the program
# reason = "our test target only builds and runs tests"

# Files an agent may never read:
# [[rule]]
# id = "no-secrets-dir"
# action = "deny"
# tool = "read_file"
# paths = ["**/secrets/**"]
# reason = "secrets stay where they are"

# Domains commands may reach through Gatehouse's proxy:
# [[rule]]
# id = "allow-package-mirror"
# action = "allow"
# tool = "network"
# domains = ["pkgs.example.test", "*.cdn.example.test"]
# ports = [8443]                   # without ports: 443 and 80

# Judge what a command did, not what it said: hold changes to migrations
# behind a card with the diff, to apply or discard.
# [[effect]]
# id = "hold-migrations"
# action = "ask"
# paths = ["db/migrations/**"]     # relative to the workspace root
# ops = ["modify", "delete"]       # create | modify | delete; empty means any
# min_files = 1
# reason = "migrations are applied to production by hand"
`;

/** The example with its blocks taken in (what a person gets by removing the "# "). */
export function uncommentedExample(): string {
  return EXAMPLE_POLICY.split('\n')
    .filter((l) => /^# (\[\[|[a-z_]+ = )/.test(l))
    .map((l) => l.slice(2))
    .join('\n')
    .replace(/\n\[\[/g, '\n\n[[');
}
