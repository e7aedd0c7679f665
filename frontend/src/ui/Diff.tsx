// Unified diff with added/removed lines coloured. Long diffs are cut to
// keep cards light; the rest is one click away. Hidden characters show as
// tokens; a binary file is one line with its size, never its bytes.

import { useState } from 'preact/hooks';
import { binaryDiffLine, type BinaryNote } from '../lib/binary';
import { Vis } from './Visible';
import { plural } from '../lib/format';

const PREVIEW_LINES = 80;

function lineClass(l: string): string {
  if (l.startsWith('+++') || l.startsWith('---') || l.startsWith('diff ')) return 'd-file';
  if (l.startsWith('@@')) return 'd-hunk';
  if (l.startsWith('+')) return 'd-add';
  if (l.startsWith('-')) return 'd-del';
  return 'd-ctx';
}

/**
 * binaries: files the diff text leaves out, listed after it with their
 * sizes; sizeOf: the size line for a file the diff names as binary.
 */
export function Diff({
  text,
  label = 'Diff',
  limit = PREVIEW_LINES,
  binaries = [],
  sizeOf,
}: {
  text: string;
  label?: string;
  limit?: number;
  binaries?: readonly BinaryNote[];
  sizeOf?: (path: string) => string | undefined;
}) {
  const [all, setAll] = useState(false);
  const lines = text ? text.replace(/\n$/, '').split('\n') : [];
  const shown = all ? lines : lines.slice(0, limit);
  const sized = new Map(binaries.map((b) => [b.path, b.text]));
  const named = new Set<string>();
  return (
    <div class="diff">
      <pre tabIndex={0} aria-label={label}>
        {shown.map((l, i) => {
          const bin = binaryDiffLine(l);
          if (bin !== null) {
            named.add(bin);
            return (
              <span key={i} class="d-binary">
                <Vis text={bin} />: {sized.get(bin) ?? sizeOf?.(bin) ?? 'binary'}
                {'\n'}
              </span>
            );
          }
          return (
            <span key={i} class={lineClass(l)}>
              <Vis text={l} multiline />
              {'\n'}
            </span>
          );
        })}
        {binaries
          .filter((b) => !named.has(b.path))
          .map((b) => (
            <span key={'b:' + b.path} class="d-binary">
              <Vis text={b.path} />: {b.text}
              {'\n'}
            </span>
          ))}
      </pre>
      {lines.length > shown.length && (
        <button type="button" class="btn link" onClick={() => setAll(true)}>
          Show all {plural(lines.length, 'line')}
        </button>
      )}
    </div>
  );
}
