import { describe, expect, it } from 'vitest';
import { backoffMs } from './backoff';

describe('backoffMs', () => {
  it('doubles from 250 ms and caps at 10 s', () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 3, 10, 50].map((a) => backoffMs(a, mid))).toEqual([250, 500, 1000, 2000, 10000, 10000]);
  });
  it('jitters within ±25 %', () => {
    expect(backoffMs(2, () => 0)).toBe(750);
    expect(backoffMs(2, () => 1)).toBe(1250);
  });
});
