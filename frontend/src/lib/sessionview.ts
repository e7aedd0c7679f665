// How the session screens name a session's state, transport and mode, and
// which checkpoint tools a call gets.

import type { Checkpoint, Mode, Session } from '../api/types';
import type { CallSummary } from './calls';

export type SessionState = 'active' | 'idle' | 'ended' | 'killed';

export function sessionState(s: Pick<Session, 'status' | 'idle'>): SessionState {
  if (s.status === 'killed') return 'killed';
  if (s.status === 'ended') return 'ended';
  return s.idle ? 'idle' : 'active';
}

export const STATE_HELP: Record<SessionState, string> = {
  active: 'connected and working',
  idle: 'live, but its client has not been heard from for a while; its sandbox is released until the next call',
  ended: 'its client went away or it was ended; nothing more runs in it',
  killed: 'stopped by the kill switch',
};

const TRANSPORTS: Record<string, string> = {
  stdio: 'stdio, through the gatehouse mcp bridge',
  hook: 'hook, the agent’s own tools',
  http: 'MCP over HTTP',
  'http-stateless': 'MCP over HTTP, stateless (a 2026-07-28 client)',
};

/**
 * Names a session's transport: a session one agent run reaches by several
 * routes records them joined by "+" ("stdio+hook"), each named here.
 */
export function transportLabel(t: string): string {
  const names = t.split('+').map((p) => TRANSPORTS[p] ?? p);
  return names.length > 1 ? `${names.slice(0, -1).join('; ')}; and ${names[names.length - 1]}` : names[0];
}

/**
 * What the "confined" badge explains, null for a session that was not
 * confined: the whole agent ran in a sandbox (`gatehouse run`), not only
 * the calls it made through Gatehouse. A live session is told in the
 * present.
 */
export function confinedHelp(s: Pick<Session, 'confined' | 'status'>): string | null {
  if (!s.confined) return null;
  return s.status === 'active'
    ? 'the agent and everything it starts run in a sandbox (gatehouse run)'
    : 'the agent and everything it started ran in a sandbox (gatehouse run)';
}

export const MODE_HELP: Record<Mode, string> = {
  plan: 'read-only: the agent may look but not change anything',
  ask: 'reads and harmless commands run; edits and other commands ask',
  auto: 'reads, workspace edits and sandboxed commands run; only calls that cross the boundary ask',
  'accept-edits': 'like ask, but edits inside the workspace run without asking',
  unattended: 'like auto, and whatever would ask is denied (for CI)',
};

// Tools that never change files take no checkpoints: nothing to diff or undo.
const READ_ONLY = new Set(['read_file', 'list_dir', 'search_files', 'fetch_url', 'ask_human']);

export interface CallTools {
  diff: boolean;
  rollbackTo: Checkpoint | null;
  undo: boolean;
}

export function callTools(tool: string, checkpoints: readonly Checkpoint[]): CallTools {
  const none = { diff: false, rollbackTo: null, undo: false };
  if (READ_ONLY.has(tool) || checkpoints.length === 0) return none;
  const pre = checkpoints.find((c) => c.phase === 'pre') ?? null;
  const post = checkpoints.find((c) => c.phase === 'post') ?? null;
  return { diff: !!(pre && post), rollbackTo: post ?? pre, undo: !!(pre && post) };
}

/**
 * What the empty approvals screen says about agents, true whether or not
 * one ever connected: none yet; some connected and working without
 * needing the person; or none right now, with earlier sessions to look at.
 * ever is null while unknown.
 */
export type AgentsQuiet = 'unknown' | 'none-yet' | 'working' | 'none-now';

export function agentsQuiet(active: number | undefined, ever: boolean | null): AgentsQuiet {
  if ((active ?? 0) > 0) return 'working';
  if (ever === null || active === undefined) return 'unknown';
  return ever ? 'none-now' : 'none-yet';
}

/** The call id a confined run's own checkpoints go under ("run-ID"). */
export const RUN_CALL_PREFIX = 'run-';

/**
 * A confined run's changes as rows beside its calls: what changed in the
 * project between the run's checkpoint before and the one after (tool
 * "run", so its row offers the diff and its undo as a call's does). That
 * is the agent's own writes, which no call recorded, and also its calls'
 * changes and anyone's edits meanwhile, which the row says.
 */
export function runCalls(checkpoints: readonly Checkpoint[]): CallSummary[] {
  const runs = new Map<string, CallSummary>();
  for (const c of checkpoints) {
    if (!c.call_id.startsWith(RUN_CALL_PREFIX)) continue;
    const r = runs.get(c.call_id);
    if (r && (c.phase !== 'pre' || r.time <= c.time)) continue;
    runs.set(c.call_id, {
      id: c.call_id,
      tool: 'run',
      target: "what changed while the run lasted: the agent's own writes, its calls' changes and others' edits meanwhile",
      time: c.time,
      verdict: '',
      approval: '',
      card: '',
      outcome: 'ok',
      exitCode: null,
      firstSeq: 0,
      end: null,
      label: '',
    });
  }
  return [...runs.values()].sort((a, b) => a.time.localeCompare(b.time));
}
