import { describe, expect, it } from 'vitest';
import { binaryChanges, binaryDiffLine, binaryPlanItems, binarySize } from './binary';

describe('binary files', () => {
  it('sizes', () => {
    expect(binarySize(10, 10)).toBe('binary, 10 bytes');
    expect(binarySize(1024, 2048)).toBe('binary, 1,024 bytes → 2,048 bytes');
    expect(binarySize(undefined, 5)).toBe('binary, 5 bytes (new)');
    expect(binarySize(5, undefined)).toBe('binary, 5 bytes (deleted)');
    expect(binarySize(undefined, undefined)).toBe('binary, size unknown');
  });
  it('reads the diff tools’ binary line', () => {
    expect(binaryDiffLine('Binary files a/img.png and b/img.png differ')).toBe('img.png');
    expect(binaryDiffLine('Binary files a/old.bin and /dev/null differ')).toBe('old.bin');
    expect(binaryDiffLine('+Binary files a and b differ')).toBeNull();
  });
  it('lists the binary changes of a call', () => {
    expect(
      binaryChanges([
        { path: 'a.txt', kind: 'modified', old_size: 1, new_size: 2 },
        { path: 'logo.png', kind: 'modified', binary: true, old_size: 100, new_size: 120 },
        { path: 'new.bin', kind: 'added', binary: true, new_size: 7 },
      ]),
    ).toEqual([
      { path: 'logo.png', text: 'binary, 100 bytes → 120 bytes' },
      { path: 'new.bin', text: 'binary, 7 bytes (new)' },
    ]);
  });
  it('lists the binary items of a rollback plan with their sizes', () => {
    const notes = binaryPlanItems({
      applied: false,
      plan: {
        items: [
          { root: '/ws', path: 'a.bin', binary: true },
          { root: '/ws', path: 'b.txt' },
        ],
        ops: [{ root: '/ws', path: 'a.bin', expect: { size: 30 }, target: { size: 20 } }],
      } as never,
    });
    expect(notes).toEqual([{ path: 'a.bin', text: 'binary, 30 bytes → 20 bytes' }]);
  });
});
