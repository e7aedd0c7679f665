// Agent-written text with its invisible and direction-changing characters
// shown as marked tokens (see lib/visible).

import { visibleParts, type VisibleOptions } from '../lib/visible';

export function Vis({ text, multiline = false }: { text: string } & VisibleOptions) {
  const parts = visibleParts(text, { multiline });
  if (parts.length === 1 && typeof parts[0] === 'string') return <>{parts[0]}</>;
  return (
    <>
      {parts.map((p, i) =>
        typeof p === 'string' ? (
          p
        ) : (
          <mark key={i} class="invis" data-cp={p.cp.toString(16)} aria-label={`hidden character ${p.token.slice(1, -1)}${p.name ? ', ' + p.name : ''}`}>
            {p.token}
          </mark>
        ),
      )}
    </>
  );
}
