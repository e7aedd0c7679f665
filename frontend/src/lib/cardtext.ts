// What a card says: its buttons' labels and, for each answer, exactly what
// it would allow, per kind of card. Kept apart from the markup so the
// sentences are tested.

import type { ApprovalRequest, Risk } from '../api/types';
import { describeSnippet } from './rulesummary';
import { hiddenIn, type Hidden } from './visible';

export type SessionChoice = { offered: true; help: string } | { offered: false; why: string };

export interface Choices {
  allow: string;
  allowHelp: string;
  deny: string;
  denyHelp: string;
  /** null: the card has no session answer at all (effect, limit, question). */
  session: SessionChoice | null;
  /** null: no "always" answer. */
  always: { help: string } | null;
}

export const NO_SESSION_WHY = 'Not offered: this agent’s runs share one Gatehouse session, so “for this session” would also cover its other runs.';

const WEB_PORTS = [443, 80];

function base(argv: readonly string[] | undefined, binary: string | undefined): string {
  const p = binary || argv?.[0] || 'the command';
  return p.slice(p.lastIndexOf('/') + 1) || p;
}

/** "pkgs.example.test on ports 443 and 80" or "pkgs.example.test:8443", as a grant for that port covers. */
export function grantedPlace(domain: string, port: number): string {
  return WEB_PORTS.includes(port) ? `${domain} on ports 443 and 80` : `${domain}:${port}`;
}

export function choices(req: ApprovalRequest): Choices {
  const always = (fallback: string) => {
    if (!req.always_rule) return req.always_note ? { help: req.always_note } : null;
    const d = describeSnippet(req.always_rule);
    return { help: `Always: from now on ${d ?? fallback} run without asking (the rule below is written to your policy file).` };
  };
  const session = (what: string): SessionChoice => {
    if (req.no_session_scope) return { offered: false, why: NO_SESSION_WHY };
    const d = describeSnippet(req.session_rule);
    return { offered: true, help: `For this session: until it ends, ${d ?? what} run without asking.` };
  };
  switch (req.kind) {
    case 'network': {
      const where = `${req.domain ?? '?'}:${req.port ?? '?'}`;
      const prog = base(req.argv, req.binary);
      const s = session(`connections from any of its commands to ${grantedPlace(req.domain ?? '?', req.port ?? 443)}`);
      return {
        allow: 'Allow once',
        allowHelp: `Once: this run of ${prog} may connect to ${where}; the next command that wants it asks again.`,
        deny: 'Deny',
        denyHelp: `Deny: ${prog} cannot connect to ${where}; the connection fails and the command goes on without it.`,
        session: s.offered
          ? { offered: true, help: req.session_rule ? s.help : `For this session: until it ends, every command in this session may connect to ${grantedPlace(req.domain ?? '?', req.port ?? 443)}.` }
          : s,
        always: always(`connections to ${req.domain ?? '?'}`),
      };
    }
    case 'effect':
      return stagedRun(req)
        ? {
            allow: 'Apply',
            allowHelp: 'Apply: write these changes into your workspace (each file atomically; the call can be undone from its session).',
            deny: 'Discard',
            denyHelp: 'Discard: throw the changes away. Your workspace was never touched.',
            session: null,
            always: null,
          }
        : {
            allow: 'Apply',
            allowHelp: 'Apply: keep these changes; they are in your workspace already (the call can be undone from its session).',
            deny: 'Discard',
            denyHelp: 'Discard: roll the changes back. This sandbox could not stage the command, so they were briefly in your workspace.',
            session: null,
            always: null,
          };
    case 'workspace': {
      const dir = req.paths?.[0] ?? 'this project';
      return {
        allow: 'Allow once',
        allowHelp: `Once: this agent session works in ${dir}: its commands may change files there (each change checkpointed), nothing outside it.`,
        deny: 'Deny',
        denyHelp: `Deny: the agent gets no workspace in ${dir}; every call it makes there is refused with your message.`,
        session: null,
        always: { help: `Always: add ${dir} to your workspace roots (in the config file); agents started in a project below it work there without asking.` },
      };
    }
    case 'limit':
      return {
        allow: 'Allow',
        allowHelp: 'Allow: double this session’s budget and let the call run.',
        deny: 'Deny',
        denyHelp: 'Deny: end the session.',
        session: null,
        always: null,
      };
    case 'question':
      return {
        allow: 'Send answer',
        allowHelp: 'Your answer goes back to the agent as the tool’s result.',
        deny: 'Decline to answer',
        denyHelp: 'The agent is told you declined.',
        session: null,
        always: null,
      };
    default:
      return {
        allow: 'Allow once',
        allowHelp: 'Once: run this call; a call like it asks again.',
        deny: 'Deny',
        denyHelp: 'Deny: refuse the call; your message, if any, goes to the agent.',
        session: session('calls like this one'),
        always: always('calls like this one'),
      };
  }
}

/**
 * Whether an effect card's changes wait outside the workspace (a staged
 * run) or are in it already (a sandbox that cannot stage, checked after
 * the fact).
 */
export function stagedRun(req: ApprovalRequest): boolean {
  return req.staged === true;
}

/** The card's headline after the agent's name. */
export function headline(req: ApprovalRequest): string {
  switch (req.kind) {
    case 'network':
      return `wants to connect to ${req.domain ?? '?'}:${req.port ?? '?'}`;
    case 'effect':
      return 'made changes that wait for you';
    case 'limit':
      return 'used up its budget';
    case 'workspace':
      return `started in ${req.paths?.[0] ?? 'a project'}, which is not one of your workspaces`;
    case 'question':
      return 'asks you';
    default:
      return 'wants';
  }
}

/** "The call came from Claude Code Bash, the agent's own tool", or null for Gatehouse's own tools. */
export function viaLine(req: ApprovalRequest): string | null {
  if (req.via !== 'hook') return null;
  return req.native ? `From the agent’s own tool: ${req.native} (not a Gatehouse tool)` : 'From one of the agent’s own tools (not a Gatehouse tool)';
}

/** Drift from the person's goal is shown above everything else. */
export function splitRisks(risks: readonly Risk[] | undefined): { drift: Risk[]; other: Risk[] } {
  const all = risks ?? [];
  return { drift: all.filter((r) => r.kind === 'drift' || r.kind === 'goal-drift'), other: all.filter((r) => r.kind !== 'drift' && r.kind !== 'goal-drift') };
}

/** Every hidden character anywhere on the card, for the warning line. */
export function hiddenOnCard(req: ApprovalRequest): Hidden[] {
  const one = [req.binary, req.url, req.domain, req.cwd, ...(req.paths ?? []), ...(req.changes ?? []).flatMap((c) => [c.path, c.target]), ...(req.conflicts ?? []).map((c) => c.path)];
  const multi = [...(req.argv ?? []), req.question, req.goal, req.diff, req.reason, ...(req.findings ?? [])];
  const seen = new Map<number, Hidden>();
  for (const h of [...hiddenIn(one), ...hiddenIn(multi, { multiline: true })]) if (!seen.has(h.cp)) seen.set(h.cp, h);
  return [...seen.values()];
}

/** "claude: sh -c make" — what a card was about, in one line, for notes. */
export function cardSummary(req: ApprovalRequest, client: string): string {
  const who = client || (req.actor.startsWith('agent:') ? req.actor.slice(6) : req.actor);
  const what =
    req.kind === 'question'
      ? `question “${req.question ?? ''}”`
      : req.kind === 'network'
        ? `${req.domain ?? ''}:${req.port ?? ''}`
        : req.argv?.length
          ? req.argv.join(' ')
          : (req.paths?.[0] ?? req.url ?? req.tool);
  return `${who}: ${what.length > 90 ? what.slice(0, 89) + '…' : what}`;
}
