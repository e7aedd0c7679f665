// The decision a card sends, and what the daemon's refusal of it means for
// the card.

import type { Decision, DecisionBody, Scope } from '../api/types';

export interface DecisionInput {
  decision: Decision;
  scope: Scope;
  message?: string;
  /** The always rule as the card showed it, and as the person left it. */
  shownRule?: string;
  editedRule?: string;
  /** Effect cards: conflicting paths to take from the agent's run. */
  staged?: string[];
}

const norm = (s: string) => s.replace(/\r\n/g, '\n').trim();

export function decisionBody(d: DecisionInput): DecisionBody {
  const body: DecisionBody = { decision: d.decision, scope: d.scope, message: d.message ?? '' };
  // Only an edited rule is sent: the daemon writes the card's own otherwise.
  if (d.decision === 'allow' && d.scope === 'always' && d.editedRule !== undefined && norm(d.editedRule) !== norm(d.shownRule ?? '')) {
    body.rule = norm(d.editedRule);
  }
  if (d.decision === 'allow' && d.staged?.length) body.staged = [...d.staged];
  return body;
}

/** What a refused decision does to the card. */
export type Refusal =
  /** 410: the agent cancelled the call; nothing ran. The card goes, with a note. */
  | 'withdrawn'
  /** 404: decided elsewhere or expired. The card goes. */
  | 'gone'
  /** 400: the card stays and shows the daemon's sentence (a rule that does not parse). */
  | 'invalid'
  /** Anything else: the card stays; the banner says what went wrong. */
  | 'failed';

export function refusal(status: number): Refusal {
  if (status === 410) return 'withdrawn';
  if (status === 404) return 'gone';
  if (status === 400) return 'invalid';
  return 'failed';
}

export const WITHDRAWN_NOTE = 'withdrawn: the agent cancelled the call';

/**
 * Why a card went away, from the event that took it (approval.decided,
 * .expired or .withdrawn and its payload), or null when nothing needs
 * saying (the kill switch says so itself).
 */
export function goneNote(kind: string, p: Record<string, unknown>): string | null {
  if (kind === 'approval.withdrawn') return WITHDRAWN_NOTE;
  if (kind === 'approval.expired' || p.status === 'expired') return 'expired: nobody answered in time, so it was denied';
  switch (p.by) {
    case 'system:kill':
      return null;
    case 'system:withdrawn':
      return WITHDRAWN_NOTE;
    case 'system:session-ended':
      return 'withdrawn: the session ended';
    case 'human':
      return `${p.status === 'denied' ? 'denied' : p.status === 'answered' ? 'answered' : 'allowed'} elsewhere (the CLI, a notification or another window)`;
  }
  return typeof p.by === 'string' && p.by ? `decided by ${p.by}` : null;
}
