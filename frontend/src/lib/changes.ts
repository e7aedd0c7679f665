// The change list of an effect card: what a staged command did, grouped
// by what happens to each path, with the details a person needs to judge
// it (mode changes, where a link points, how big a file is).

import type { Change } from '../api/types';
import { bytes, plural } from './format';

export type Op = Change['op'];

/** Ops in the order the card lists them: what is lost first. */
export const OPS: readonly Op[] = ['delete', 'modify', 'create'];

export interface ChangeGroups {
  groups: { op: Op; changes: Change[] }[];
  counts: Record<Op, number>;
  /** Paths whose permission bits change (also listed in their group). */
  modeChanges: Change[];
  /** Symbolic links created or changed, with their targets. */
  links: Change[];
  total: number;
}

const OP_SET = new Set<string>(OPS);

export function groupChanges(changes: readonly Change[] | undefined): ChangeGroups {
  const by: Record<Op, Change[]> = { delete: [], modify: [], create: [] };
  for (const c of changes ?? []) {
    // An op this UI does not know is shown as a modification, never dropped.
    by[OP_SET.has(c.op) ? c.op : 'modify'].push(c);
  }
  for (const op of OPS) by[op].sort((a, b) => a.path.localeCompare(b.path));
  const all = OPS.flatMap((op) => by[op]);
  return {
    groups: OPS.filter((op) => by[op].length > 0).map((op) => ({ op, changes: by[op] })),
    counts: { delete: by.delete.length, modify: by.modify.length, create: by.create.length },
    modeChanges: all.filter((c) => c.op !== 'delete' && c.old_mode && c.mode && c.old_mode !== c.mode),
    links: all.filter((c) => c.kind === 'symlink' && c.op !== 'delete'),
    total: all.length,
  };
}

const OP_LABEL: Record<Op, [string, string]> = {
  delete: ['deleted', 'Deleted'],
  modify: ['modified', 'Modified'],
  create: ['created', 'Created'],
};

export function opLabel(op: Op): string {
  return OP_LABEL[op][1];
}

/**
 * "25 deleted (+1 directory), 2 modified, 1 created": files and links
 * counted apart from directories, so the numbers match the findings.
 */
export function countsLine(g: ChangeGroups): string {
  const parts = g.groups.map(({ op, changes }) => {
    const dirs = changes.filter((c) => c.kind === 'dir').length;
    const files = changes.length - dirs;
    const d = plural(dirs, 'directory', 'directories');
    if (files === 0) return `${d} ${OP_LABEL[op][0]}`;
    return `${files} ${OP_LABEL[op][0]}${dirs ? ` (+${d})` : ''}`;
  });
  return parts.length ? parts.join(', ') : 'no changes';
}

/** What the card says about one change besides its path. */
export function changeDetail(c: Change): string {
  const parts: string[] = [];
  if (c.kind === 'dir') parts.push('directory');
  else if (c.kind === 'special') parts.push('special file');
  if (c.kind === 'symlink') parts.push(c.target !== undefined ? `link → ${c.target}` : 'link');
  if (c.mode_only) parts.push(`mode only: ${c.old_mode ?? '?'} → ${c.mode ?? '?'}`);
  else if (c.old_mode && c.mode && c.old_mode !== c.mode) parts.push(`mode ${c.old_mode} → ${c.mode}`);
  else if (c.op === 'create' && c.mode && isExecutable(c.mode)) parts.push(`mode ${c.mode}`);
  if (c.kind !== 'dir' && c.kind !== 'symlink' && c.size !== undefined && !c.mode_only && c.op !== 'delete') parts.push(bytes(c.size));
  return parts.join(' · ');
}

/** True when the mode string (octal, "0755", or ls-style "-rwxr-xr-x") sets an execute bit. */
export function isExecutable(mode: string): boolean {
  if (/^0?[0-7]{3,4}$/.test(mode)) return (parseInt(mode, 8) & 0o111) !== 0;
  return /^[-dlcbps]?[-r][-w][xsS]|^[-dlcbps]?.{3}[-r][-w][xsS]|^[-dlcbps]?.{6}[-r][-w][xtT]/.test(mode);
}

/** Conflict choices → the decision's `staged` list: the paths to take from the agent's run. */
export function stagedPaths(choices: Readonly<Record<string, 'mine' | 'agent'>>, conflicts: readonly { path: string }[]): string[] {
  return conflicts.filter((c) => choices[c.path] === 'agent').map((c) => c.path);
}
