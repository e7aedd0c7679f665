// Timings a browser test reads from window.__gatehouseMetrics. Kept in the
// product (cheap, bounded) so performance can be checked on the real build.

export interface Metrics {
  /** Server event time → approval card inserted into the DOM, ms. */
  cardLatencies: number[];
  /** Event bytes received by the page → card inserted into the DOM, ms. */
  cardReceiveLatencies: number[];
  /** Timeline opened → first rows painted, ms; with the row count it had. */
  timelineFirstPaintMs?: number;
  timelineFirstPaintRows?: number;
}

const MAX_SAMPLES = 1000;

export function metrics(): Metrics {
  const w = window as unknown as { __gatehouseMetrics?: Metrics };
  w.__gatehouseMetrics ??= { cardLatencies: [], cardReceiveLatencies: [] };
  return w.__gatehouseMetrics;
}

export function pushSample(list: number[], v: number): void {
  list.push(Math.round(v * 10) / 10);
  if (list.length > MAX_SAMPLES) list.splice(0, list.length - MAX_SAMPLES);
}
