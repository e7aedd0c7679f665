import { describe, expect, it } from 'vitest';
import type { Change } from '../api/types';
import { changeDetail, countsLine, groupChanges, isExecutable, stagedPaths } from './changes';

const rmrf: Change[] = [
  ...Array.from({ length: 25 }, (_, i): Change => ({ path: `src/f${String(i).padStart(2, '0')}.go`, op: 'delete', kind: 'file' })),
  { path: 'src', op: 'delete', kind: 'dir' },
];

describe('groupChanges', () => {
  it('groups by op, deletions first, and counts', () => {
    const g = groupChanges([
      { path: 'b.txt', op: 'create', kind: 'file', size: 12, mode: '0644' },
      ...rmrf,
      { path: 'go.mod', op: 'modify', kind: 'file', size: 80 },
    ]);
    expect(g.groups.map((x) => x.op)).toEqual(['delete', 'modify', 'create']);
    expect(g.counts).toEqual({ delete: 26, modify: 1, create: 1 });
    expect(g.total).toBe(28);
    expect(countsLine(g)).toBe('25 deleted (+1 directory), 1 modified, 1 created');
    expect(g.groups[0]!.changes[0]!.path).toBe('src');
  });

  it('finds mode changes and links', () => {
    const g = groupChanges([
      { path: 'run.sh', op: 'modify', kind: 'file', old_mode: '0644', mode: '0755', mode_only: true },
      { path: 'out', op: 'create', kind: 'symlink', target: '/home/me/.ssh' },
      { path: 'gone', op: 'delete', kind: 'symlink', target: 'x' },
    ]);
    expect(g.modeChanges.map((c) => c.path)).toEqual(['run.sh']);
    expect(g.links.map((c) => c.path)).toEqual(['out']);
  });

  it('keeps a change with an op it does not know, as a modification', () => {
    const g = groupChanges([{ path: 'x', op: 'rename' as Change['op'], kind: 'file' }]);
    expect(g.counts.modify).toBe(1);
  });

  it('counts directories apart', () => {
    expect(countsLine(groupChanges([{ path: 'a', op: 'create', kind: 'dir' }, { path: 'b', op: 'create', kind: 'dir' }]))).toBe('2 directories created');
  });

  it('handles no changes', () => {
    const g = groupChanges(undefined);
    expect(g.groups).toEqual([]);
    expect(countsLine(g)).toBe('no changes');
  });
});

describe('changeDetail', () => {
  const cases: [Change, string][] = [
    [{ path: 'a', op: 'create', kind: 'file', size: 2048, mode: '0644' }, '2.0 KiB'],
    [{ path: 'a', op: 'create', kind: 'file', size: 10, mode: '0755' }, 'mode 0755 · 10 B'],
    [{ path: 'a', op: 'modify', kind: 'file', size: 10, old_mode: '0644', mode: '0600' }, 'mode 0644 → 0600 · 10 B'],
    [{ path: 'a', op: 'modify', kind: 'file', old_mode: '0644', mode: '0755', mode_only: true }, 'mode only: 0644 → 0755'],
    [{ path: 'l', op: 'create', kind: 'symlink', target: '../../etc/passwd' }, 'link → ../../etc/passwd'],
    [{ path: 'd', op: 'delete', kind: 'dir' }, 'directory'],
    [{ path: 'f', op: 'delete', kind: 'file', size: 99 }, ''],
    [{ path: 'p', op: 'create', kind: 'special' }, 'special file'],
  ];
  for (const [c, want] of cases) it(`${c.op} ${c.kind} → ${want || '(nothing)'}`, () => expect(changeDetail(c)).toBe(want));
});

describe('isExecutable', () => {
  it.each([
    ['0755', true],
    ['644', false],
    ['0100', true],
    ['-rwxr-xr-x', true],
    ['-rw-r--r--', false],
    ['-rw-r--r-x', true],
  ])('%s → %s', (m, want) => expect(isExecutable(m)).toBe(want));
});

describe('stagedPaths', () => {
  it('sends only the paths where the person took the agent’s version', () => {
    const conflicts = [
      { path: 'a.go', why: 'you edited it during the run' },
      { path: 'b.go', why: 'you edited it during the run' },
      { path: 'c.go', why: 'you deleted it' },
    ];
    expect(stagedPaths({}, conflicts)).toEqual([]);
    expect(stagedPaths({ 'b.go': 'agent', 'a.go': 'mine', 'x.go': 'agent' }, conflicts)).toEqual(['b.go']);
  });
});
