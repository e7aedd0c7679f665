// Unified diff with added/removed lines coloured. Long diffs are cut to
// keep cards light; the rest is one click away.

import { useState } from 'preact/hooks';

const PREVIEW_LINES = 80;

function lineClass(l: string): string {
  if (l.startsWith('+++') || l.startsWith('---') || l.startsWith('diff ')) return 'd-file';
  if (l.startsWith('@@')) return 'd-hunk';
  if (l.startsWith('+')) return 'd-add';
  if (l.startsWith('-')) return 'd-del';
  return 'd-ctx';
}

export function Diff({ text, label = 'Diff', limit = PREVIEW_LINES }: { text: string; label?: string; limit?: number }) {
  const [all, setAll] = useState(false);
  const lines = text.replace(/\n$/, '').split('\n');
  const shown = all ? lines : lines.slice(0, limit);
  return (
    <div class="diff">
      <pre tabIndex={0} aria-label={label}>
        {shown.map((l, i) => (
          <span key={i} class={lineClass(l)}>
            {l}
            {'\n'}
          </span>
        ))}
      </pre>
      {lines.length > shown.length && (
        <button type="button" class="btn link" onClick={() => setAll(true)}>
          Show all {lines.length} lines
        </button>
      )}
    </div>
  );
}
