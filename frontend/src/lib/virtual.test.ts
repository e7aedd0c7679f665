import { describe, expect, it } from 'vitest';
import { listWindow, scrollTopFor } from './virtual';

const base = { rowHeight: 28, viewportHeight: 560, overscan: 5 };

describe('listWindow', () => {
  it('renders only the visible rows plus overscan', () => {
    const w = listWindow({ ...base, count: 100_000, scrollTop: 28 * 1000 });
    expect(w.totalHeight).toBe(2_800_000);
    expect(w.start).toBe(995);
    expect(w.end).toBe(1000 + 21 + 5);
    expect(w.offsetY).toBe(995 * 28);
  });

  it('clamps at the top and bottom', () => {
    expect(listWindow({ ...base, count: 100, scrollTop: -50 })).toMatchObject({ start: 0, offsetY: 0 });
    const w = listWindow({ ...base, count: 100, scrollTop: 1e9 });
    expect(w.end).toBe(100);
    expect(w.offsetY + (w.end - w.start) * 28).toBe(w.totalHeight);
  });

  it('handles empty and tiny lists', () => {
    expect(listWindow({ ...base, count: 0, scrollTop: 0 })).toEqual({ totalHeight: 0, start: 0, end: 0, offsetY: 0 });
    expect(listWindow({ ...base, count: 3, scrollTop: 0 })).toMatchObject({ start: 0, end: 3, totalHeight: 84 });
  });

  it('scales past the browser height cap and still reaches the last row', () => {
    const count = 10_000_000;
    const maxPx = 1_000_000;
    const top = listWindow({ ...base, count, scrollTop: 0, maxPx });
    expect(top.totalHeight).toBe(maxPx);
    expect(top.start).toBe(0);
    const bottom = listWindow({ ...base, count, scrollTop: maxPx - base.viewportHeight, maxPx });
    expect(bottom.end).toBe(count);
    // The last row's bottom edge sits at the bottom of the content.
    expect(bottom.offsetY + (bottom.end - bottom.start) * 28).toBeCloseTo(maxPx, 6);
    const mid = listWindow({ ...base, count, scrollTop: (maxPx - base.viewportHeight) / 2, maxPx, overscan: 0 });
    expect(Math.abs(mid.start - (count - 20) / 2)).toBeLessThan(2);
  });

  it('scrollTopFor inverts the mapping', () => {
    for (const maxPx of [undefined, 1_000_000]) {
      const count = 5_000_000;
      const st = scrollTopFor(1_234_567, count, 28, 560, maxPx);
      const w = listWindow({ ...base, count, scrollTop: st, overscan: 0, ...(maxPx ? { maxPx } : {}) });
      expect(w.start).toBe(1_234_567);
    }
  });
});
