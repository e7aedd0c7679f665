// Words for going public: how long an exposure has left, and the
// warnings about what reaches the daemon that Gatehouse does not control.

import type { Exposure, Suspected } from '../api/types';
import { plural } from './format';

/** "42 minutes left", "1 hour 5 minutes left", "ending now". */
export function timeLeft(expiresIso: string, nowMs: number): string {
  const mins = Math.ceil((Date.parse(expiresIso) - nowMs) / 60_000);
  if (!(mins > 0)) return 'ending now';
  const h = Math.floor(mins / 60);
  const m = mins % 60;
  const parts: string[] = [];
  if (h) parts.push(plural(h, 'hour'));
  if (m) parts.push(plural(m, 'minute'));
  return `${parts.join(' ')} left`;
}

/** One line for an open exposure. */
export function exposureLine(x: Exposure, nowMs: number): string {
  const where = x.tunnel?.url ? `through ${x.tunnel.url}` : `on ${x.listen}`;
  return `Exposure ${x.id} ${where}, ${timeLeft(x.expires, nowMs)}; ${plural(x.devices, 'device')}, ${plural(x.decisions, 'decision')}.`;
}

/** The banner's sentences, one per thing seen; none when all is quiet. */
export function suspicions(s: Suspected | undefined): string[] {
  if (!s) return [];
  const out: string[] = [];
  if (s.relayed) {
    const r = s.relayed;
    out.push(
      `${plural(r.count, 'request')} relayed by a proxy or tunnel reached Gatehouse and ${r.count === 1 ? 'was' : 'were'} refused (carrying ${r.headers.join(', ')}). ` +
        'Something forwards the daemon’s port; use Decide from another device instead.',
    );
  }
  for (const p of s.processes ?? []) {
    const name = p.command || 'a process Gatehouse cannot see';
    const line = `${name} (pid ${p.pid}) holds a connection to the daemon and is not one of Gatehouse’s programs. If it is a tunnel or relay, it exposes Gatehouse beyond its control.`;
    // Once a process, however many connections it holds (a browser: two).
    if (!out.includes(line)) out.push(line);
  }
  return out;
}

/** The durations the window offers, all within the daemon's 24 h bound. */
export const DURATIONS: { value: string; label: string }[] = [
  { value: '15m', label: '15 minutes' },
  { value: '1h', label: '1 hour' },
  { value: '4h', label: '4 hours' },
  { value: '24h', label: '24 hours' },
];
