// One-line summaries of audit events for timeline rows and call lists.

import type { AuditEvent } from '../api/types';
import { endOf, outcomeLabel } from './outcome';
import { plural } from './format';

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

function argvText(v: unknown): string {
  return Array.isArray(v) ? v.map((a) => (typeof a === 'string' && /\s/.test(a) ? JSON.stringify(a) : str(a))).join(' ') : '';
}

/** What a tool call asked for, from its args: argv, path or URL. */
export function callTarget(tool: string, args: unknown): string {
  if (!args || typeof args !== 'object') return tool;
  const a = args as Record<string, unknown>;
  const what = a.argv !== undefined ? argvText(a.argv) : str(a.path ?? a.url ?? a.query ?? a.pattern ?? a.question ?? '');
  return what ? `${tool} ${what}` : tool;
}

export function summarize(e: AuditEvent): string {
  const p = e.payload ?? {};
  switch (e.kind) {
    case 'tool.call':
      return callTarget(str(p.tool), p.args);
    case 'tool.invalid':
      return `${str(p.tool)} rejected: ${str(p.error)}`;
    case 'tool.denied':
      return `${str(p.tool)} denied${p.error ? ': ' + str(p.error) : ''}`;
    case 'tool.error':
      return `${str(p.tool)} failed${p.error ? ': ' + str(p.error) : ''}`;
    case 'tool.result': {
      const b = num(p.bytes);
      // An allowed local read is one row that also carries its args.
      const what = p.args !== undefined ? callTarget(str(p.tool), p.args) : str(p.tool);
      // How it ended, when the row says (every row since outcomes were recorded).
      const end = endOf(p.outcome);
      const how = end ? outcomeLabel(end) : p.is_error ? 'error' : 'ok';
      const head = `${what} ${how}${b !== undefined ? `, ${b} B` : ''}${p.truncated ? ' (truncated)' : ''}`;
      return p.preview ? `${head}: ${str(p.preview).replace(/\s+/g, ' ').slice(0, 160)}` : head;
    }
    case 'tool.cleared':
      return `${str(p.tool)} cleared${p.native ? ` for ${str(p.native)}` : ''}`;
    case 'policy.decision':
      return `${str(p.verdict)} ${str(p.tool)}${p.reason ? ' — ' + str(p.reason) : ''}`;
    case 'approval.requested':
      if (p.kind === 'question') return `asks the human: ${str(p.question)}`;
      if (p.kind === 'network') return `waiting for approval: connect to ${str(p.domain)}:${str(p.port)}${p.argv ? ` (${argvText(p.argv)})` : ''}`;
      if (p.kind === 'workspace') return `waiting for approval: work in ${Array.isArray(p.paths) && p.paths.length ? str(p.paths[0]) : 'a project'}`;
      if (p.kind === 'effect') return `waiting for approval: apply ${plural(Array.isArray(p.changes) ? p.changes.length : 0, 'change')}${p.argv ? ` of ${argvText(p.argv)}` : ''}`;
      return `waiting for approval: ${p.argv ? `${str(p.tool)} ${argvText(p.argv)}` : str(p.tool)}`;
    case 'approval.withdrawn':
      return `withdrawn: ${str(p.message) || 'the agent cancelled the call'}`;
    case 'approval.decided': {
      const scope = p.scope && p.scope !== 'once' ? ` (${str(p.scope)})` : '';
      return `${str(p.status)}${scope} by ${str(p.by)}${p.message ? ': ' + str(p.message) : ''}`;
    }
    case 'approval.overridden':
      // A device's decision that lost the race (backend/approval/race.go).
      return `${p.allow ? 'allow' : 'deny'} from ${str(p.device) || 'a device'} not used: ${p.by === 'human' ? 'decided on the computer' : `settled by ${str(p.by)}`}`;
    case 'approval.expired':
      return `expired${p.reason ? ': ' + str(p.reason) : ''}`;
    case 'exec.started':
      return `${argvText(p.argv)}${p.backend ? ` [${str(p.backend)}]` : ''}`;
    case 'exec.finished': {
      const status = p.killed ? `killed${p.kill_reason ? ' (' + str(p.kill_reason) + ')' : ''}` : p.signal ? `signal ${str(p.signal)}` : `exit ${str(p.exit_code)}`;
      return `${status} in ${str(p.duration_ms)} ms, ${str(p.stdout_bytes ?? 0)} B out, ${str(p.stderr_bytes ?? 0)} B err`;
    }
    case 'session.start':
      return [str(p.client_name ?? p.client), str(p.client_version), p.transport ? `(${str(p.transport)})` : ''].filter(Boolean).join(' ') || 'session started';
    case 'run.started': {
      // Where it started; the workspaces it was given when the daemon did not say.
      const where = str(p.cwd) || (Array.isArray(p.workspaces) ? str(p.workspaces[0]) : '');
      return `started confined: ${argvText(p.argv)}${where ? ` in ${where}` : ''}${p.backend ? ` [${str(p.backend)}]` : ''}`;
    }
    case 'run.ended': {
      const exit = num(p.exit);
      // A negative status: `gatehouse run` went away before the agent said.
      if (exit === undefined || exit < 0) return 'confined agent ended without a status (gatehouse run went away)';
      return `confined agent exited with status ${exit}`;
    }
    case 'session.mode':
      return `mode ${str(p.from ?? '')}${p.from ? ' → ' : ''}${str(p.mode ?? p.to)}`;
    default: {
      // Unknown kinds still say something: their reason or first fields.
      if (p.reason) return str(p.reason);
      const keys = Object.keys(p).slice(0, 3);
      return keys.map((k) => `${k}=${str(p[k]).slice(0, 40)}`).join(' ');
    }
  }
}

/** The family of a kind, "tool.call" → "tool". */
export function family(kind: string): string {
  const i = kind.indexOf('.');
  return i < 0 ? kind : kind.slice(0, i);
}
