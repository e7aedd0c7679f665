import { describe, expect, it } from 'vitest';
import { errorLine, splitArgs } from './argv';

describe('splitArgs', () => {
  it('splits on whitespace and honours quotes and escapes', () => {
    expect(splitArgs('git push --force')).toEqual(['git', 'push', '--force']);
    expect(splitArgs(`sh -c 'echo "hi there"'`)).toEqual(['sh', '-c', 'echo "hi there"']);
    expect(splitArgs(`echo "a \\"b\\"" c\\ d ''`)).toEqual(['echo', 'a "b"', 'c d', '']);
    expect(splitArgs('  ')).toEqual([]);
  });
});

describe('errorLine', () => {
  it('finds the line number in a policy error', () => {
    expect(errorLine('policy.toml:12: unknown action "alow"')).toBe(12);
    expect(errorLine('/home/u/policy.toml:3:7: bad')).toBe(3);
    expect(errorLine('no line here')).toBeNull();
  });
});
