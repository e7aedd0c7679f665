// Reconnect delays for a dead or restarting daemon: quick at first (a restart
// takes a second or two), capped so the UI notices a revived daemon soon,
// jittered so several windows do not reconnect in lockstep.

export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(10_000, 250 * 2 ** Math.max(0, attempt));
  return Math.round(base * (0.75 + 0.5 * random()));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}
