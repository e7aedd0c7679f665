import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../api/types';
import { bySession } from './flood';

const a = (session: string, created_at: string) => ({ id: session + created_at, session, created_at }) as ApprovalRequest;

describe('bySession', () => {
  it('counts cards per session, sessions in the order of their oldest card', () => {
    expect(bySession([a('s2', '2'), a('s1', '3'), a('s2', '1'), a('s1', '4')])).toEqual([
      { session: 's2', count: 2, oldest: '1' },
      { session: 's1', count: 2, oldest: '3' },
    ]);
    expect(bySession([])).toEqual([]);
  });
});
