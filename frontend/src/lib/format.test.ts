import { describe, expect, it } from 'vitest';
import { plural } from './format';

describe('plural', () => {
  it('agrees with the count', () => {
    expect(plural(0, 'file')).toBe('0 files');
    expect(plural(1, 'file')).toBe('1 file');
    expect(plural(2, 'call')).toBe('2 calls');
    expect(plural(1, 'directory', 'directories')).toBe('1 directory');
    expect(plural(3, 'directory', 'directories')).toBe('3 directories');
  });

  it('groups thousands', () => {
    expect(plural(100000, 'event')).toBe('100,000 events');
  });
});
