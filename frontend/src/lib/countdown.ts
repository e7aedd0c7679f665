// The automatic-deny countdown on an approval card.

import { plural } from './format';

export type Urgency = 'calm' | 'soon' | 'urgent' | 'expired';

export interface Countdown {
  /** "1:59", "0:07", or "0:00" once expired. */
  text: string;
  /** Whole seconds left, never negative. */
  seconds: number;
  urgency: Urgency;
}

export function countdown(expiresAtMs: number, nowMs: number): Countdown {
  // Ceil so "0:01" shows until the last moment and 0:00 only once it is due.
  const seconds = Math.max(0, Math.ceil((expiresAtMs - nowMs) / 1000));
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  const urgency: Urgency = seconds === 0 ? 'expired' : seconds <= 10 ? 'urgent' : seconds <= 30 ? 'soon' : 'calm';
  return { text: `${m}:${String(s).padStart(2, '0')}`, seconds, urgency };
}

/** Spoken form for screen readers, e.g. "denied automatically in 1 minute 5 seconds". */
export function countdownLabel(c: Countdown): string {
  if (c.seconds === 0) return 'expired; denied automatically';
  const m = Math.floor(c.seconds / 60);
  const s = c.seconds % 60;
  const parts: string[] = [];
  if (m) parts.push(plural(m, 'minute'));
  if (s) parts.push(plural(s, 'second'));
  return `denied automatically in ${parts.join(' ')}`;
}
