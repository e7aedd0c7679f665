import { describe, expect, it } from 'vitest';
import { syncHash } from './router';

describe('syncHash', () => {
  const run = (hash: string, want: string) => {
    const written: string[] = [];
    syncHash('timeline', want, { hash }, { replaceState: (_d, _t, url) => void written.push(String(url)) });
    return written;
  };

  it("writes the view's state while its screen is shown", () => {
    expect(run('#/timeline/q=git', '#/timeline/q=git%20log')).toEqual(['#/timeline/q=git%20log']);
  });

  it('leaves a fragment that says the same alone', () => {
    expect(run('#/timeline/q=git', '#/timeline/q=git')).toEqual([]);
  });

  it("never takes back the person's move to another screen", () => {
    expect(run('#/sessions', '#/timeline/q=git')).toEqual([]);
  });
});
