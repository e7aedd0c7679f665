import { describe, expect, it } from 'vitest';
import { countdown, countdownLabel } from './countdown';

const at = (msLeft: number) => countdown(1_000_000 + msLeft, 1_000_000);

describe('countdown', () => {
  it('formats minutes and zero-padded seconds', () => {
    expect(at(120_000).text).toBe('2:00');
    expect(at(119_001).text).toBe('2:00');
    expect(at(119_000).text).toBe('1:59');
    expect(at(65_000).text).toBe('1:05');
    expect(at(9_500).text).toBe('0:10');
    expect(at(1).text).toBe('0:01');
  });
  it('never goes negative', () => {
    expect(at(0)).toEqual({ text: '0:00', seconds: 0, urgency: 'expired' });
    expect(at(-5_000)).toEqual({ text: '0:00', seconds: 0, urgency: 'expired' });
  });
  it('raises urgency as the deadline nears', () => {
    expect(at(31_000).urgency).toBe('calm');
    expect(at(30_000).urgency).toBe('soon');
    expect(at(10_000).urgency).toBe('urgent');
  });
  it('has a spoken label', () => {
    expect(countdownLabel(at(61_000))).toBe('denied automatically in 1 minute 1 second');
    expect(countdownLabel(at(120_000))).toBe('denied automatically in 2 minutes');
    expect(countdownLabel(at(0))).toBe('expired; denied automatically');
  });
});
