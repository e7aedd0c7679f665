// Binary files in diffs: never their bytes, always "binary, N bytes".

import type { RollbackReply } from '../api/types';
import { plural } from './format';

/** A file the diff text cannot show, with what is known about its size. */
export interface BinaryNote {
  path: string;
  text: string;
}

const n = (x: number) => plural(x, 'byte');

/** "binary, 1,024 bytes", or with the size before and after a change. */
export function binarySize(before: number | undefined, after: number | undefined): string {
  if (before !== undefined && after !== undefined) return before === after ? `binary, ${n(after)}` : `binary, ${n(before)} → ${n(after)}`;
  if (after !== undefined) return `binary, ${n(after)} (new)`;
  if (before !== undefined) return `binary, ${n(before)} (deleted)`;
  return 'binary, size unknown';
}

/** The "Binary files a/x and b/x differ" line diff tools write; the path or null. */
export function binaryDiffLine(line: string): string | null {
  const m = /^Binary files (.+) and (.+) differ$/.exec(line);
  if (!m) return null;
  const after = m[2]!;
  const before = m[1]!;
  const pick = after === '/dev/null' ? before : after;
  return pick.replace(/^[ab]\//, '');
}

interface SnapshotChange {
  path: string;
  kind?: string;
  binary?: boolean;
  old_size?: number;
  new_size?: number;
}

/** Binary files of GET …/calls/{call}/diff's `changes`. */
export function binaryChanges(changes: readonly SnapshotChange[] | undefined): BinaryNote[] {
  return (changes ?? [])
    .filter((c) => c.binary)
    .map((c) => ({
      path: c.path,
      text: binarySize(c.kind === 'added' ? undefined : c.old_size, c.kind === 'deleted' ? undefined : c.new_size),
    }));
}

/** Binary files of a rollback plan, sized from its steps (now → after the rollback). */
export function binaryPlanItems(r: RollbackReply): BinaryNote[] {
  const plan = r.plan as { items?: { root?: string; path: string; binary?: boolean }[]; ops?: { root?: string; path: string; expect?: { size: number } | null; target?: { size: number } | null }[] };
  return (plan.items ?? [])
    .filter((it) => it.binary)
    .map((it) => {
      const op = (plan.ops ?? []).find((o) => o.path === it.path && (o.root ?? '') === (it.root ?? ''));
      return { path: it.path, text: binarySize(op?.expect?.size ?? undefined, op?.target?.size ?? undefined) };
    });
}
