// How a call ended, in words, and a session's calls summed up by how they
// ended. The daemon records each call's end on its last audit row
// ("outcome", session.End) and counts it once in the session's
// "outcomes"; these say the same as the CLI (session.End.Label in Go).

import type { Session } from '../api/types';
import { plural } from './format';

export type OutcomeName = 'ok' | 'applied' | 'cleared' | 'failed' | 'denied' | 'discarded' | 'rolled_back' | 'refused' | 'stopped';

/** A call's end, as its last audit row carries it. */
export interface CallEnd {
  outcome: OutcomeName | string;
  /** Who decided a denial, discard or rollback: person, policy, gatehouse, timeout, kill_switch, agent. */
  by?: string;
  /** What the person wrote with their deny. */
  message?: string;
  exit_code?: number;
  /** Why Gatehouse stopped the command (timeout, cpu, …). */
  killed?: string;
  /** Its changes waited on a card for the person. */
  held?: boolean;
  /** A failed command's changes landed all the same. */
  applied?: boolean;
}

/** The outcome on a payload, if it carries one. */
export function endOf(v: unknown): CallEnd | null {
  if (!v || typeof v !== 'object') return null;
  const e = v as Record<string, unknown>;
  return typeof e.outcome === 'string' && e.outcome ? (e as unknown as CallEnd) : null;
}

function decided(what: string, e: CallEnd): string {
  switch (e.by) {
    case 'person': {
      const m = (e.message ?? '').trim();
      return m ? `${what} by you: ${m}` : `${what} by you`;
    }
    case 'policy':
      return `${what} by policy`;
    case 'timeout':
      return `${what}: nobody decided in time`;
    case 'kill_switch':
      return `${what}: your kill switch stopped it`;
    case 'agent':
      return `${what}: the agent cancelled it`;
  }
  return `${what} by Gatehouse`;
}

/** The outcome for the person, who is "you": "discarded by you: keep history". */
export function outcomeLabel(e: CallEnd): string {
  switch (e.outcome) {
    case 'ok':
      return 'ok';
    case 'applied':
      return e.held ? 'applied after your approval' : 'applied';
    case 'cleared':
      return "cleared; the agent's own tool ran it";
    case 'failed': {
      let s = 'failed';
      if (e.killed) s += ` (stopped: ${e.killed})`;
      else if (typeof e.exit_code === 'number') s += ` (exit ${e.exit_code})`;
      return e.applied ? `${s}, its changes applied` : s;
    }
    case 'denied':
      return decided('denied', e);
    case 'discarded':
      return decided('discarded', e);
    case 'rolled_back':
      return decided('rolled back', e);
    case 'refused':
      return 'refused by Gatehouse';
    case 'stopped':
      return 'stopped by your kill switch';
  }
  return e.outcome;
}

/** Whether the outcome is a call that did what it was asked. */
export function outcomeWent(e: CallEnd): boolean {
  return e.outcome === 'ok' || e.outcome === 'applied' || e.outcome === 'cleared';
}

export type Tally = Partial<Record<OutcomeName, number>>;

/** The buckets in the order summaries name them, with their names. */
export const OUTCOMES: [OutcomeName, string][] = [
  ['ok', 'ok'],
  ['applied', 'applied'],
  ['cleared', "cleared for the agent's own tool"],
  ['failed', 'failed'],
  ['denied', 'denied'],
  ['discarded', 'discarded'],
  ['rolled_back', 'rolled back'],
  ['refused', 'refused'],
  ['stopped', 'stopped by the kill switch'],
];

/**
 * How a session's calls ended, each call counted once, so the parts add
 * up to its calls: "2 ok, 1 discarded, 1 running or waiting". Empty for a
 * session recorded before outcomes were counted.
 */
export function tallyText(s: Pick<Session, 'calls' | 'status' | 'outcomes'>): string {
  const t = s.outcomes ?? {};
  const parts: string[] = [];
  let ended = 0;
  for (const [k, name] of OUTCOMES) {
    const n = t[k] ?? 0;
    ended += n;
    if (n > 0) parts.push(`${n} ${name}`);
  }
  if (parts.length > 0 && s.calls > ended) parts.push(`${s.calls - ended} ${s.status === 'active' ? 'running or waiting' : 'never finished'}`);
  return parts.join(', ');
}

/** A session's calls summed up, with asking said apart: it is a dimension of its own. */
export function callsSummary(s: Pick<Session, 'calls' | 'status' | 'outcomes' | 'asked'>): string {
  const tally = tallyText(s);
  let line = `${plural(s.calls, 'call')}${tally ? ': ' + tally : ''}.`;
  // Cards that are not calls' own (a confined run's network access): "of them" would not add up.
  if (s.asked > s.calls) line += s.asked === 1 ? ' Gatehouse asked you once.' : ` Gatehouse asked you ${s.asked} times.`;
  else if (s.asked === 1 && s.calls === 1) line += ' It asked you first.';
  else if (s.asked === 1) line += ' 1 of them asked you first.';
  else if (s.asked > 1) line += ` ${s.asked} of them asked you first.`;
  return line;
}
