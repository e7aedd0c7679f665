import { describe, expect, it } from 'vitest';
import { heldPath, isEmpty, rollbackSummary } from './rollback';

describe('rollbackSummary', () => {
  it('prefers the grouped summary', () => {
    const s = rollbackSummary({ applied: false, plan: { id: 'rb_1' }, summary: { delete: ['a.txt'], restore: [], recreate: [], conflicts: [], external_edits: [], diff: '-x\n' } });
    expect(s.delete).toEqual(['a.txt']);
    expect(isEmpty(s)).toBe(false);
  });
  it('falls back to fields on plan and fills gaps', () => {
    const s = rollbackSummary({ applied: false, plan: { restore: ['b'], conflicts: [{ path: 'c', calls: ['c_2'] }] } });
    expect(s).toEqual({ restore: ['b'], delete: [], recreate: [], conflicts: [{ path: 'c', calls: ['c_2'] }], external_edits: [], diff: '' });
    expect(heldPath(s.conflicts[0]!)).toBe('c (changed later by c_2)');
    expect(isEmpty(rollbackSummary({ applied: false, plan: {} }))).toBe(true);
  });
});
