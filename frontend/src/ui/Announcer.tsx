// Tells screen-reader users about new approval requests wherever they are
// in the app (the cards themselves may be on another screen).

import { useEffect, useRef, useState } from 'preact/hooks';
import { actorName } from '../lib/format';
import { store } from '../state/app';
import { useStore } from '../state/store';

export function Announcer() {
  const approvals = useStore(store, (s) => s.approvals);
  const seen = useRef(new Set<string>());
  const [text, setText] = useState('');
  useEffect(() => {
    const fresh = approvals.filter((a) => !seen.current.has(a.id));
    for (const a of approvals) seen.current.add(a.id);
    if (fresh.length === 1) {
      const a = fresh[0]!;
      setText(a.kind === 'question' ? `${actorName(a.actor)} asks: ${a.question ?? ''}` : `Approval needed: ${actorName(a.actor)} wants ${a.tool}${a.argv ? ' ' + a.argv.join(' ') : ''}`);
    } else if (fresh.length > 1) {
      setText(`${fresh.length} new approval requests`);
    }
  }, [approvals]);
  return (
    <div class="sr-only" aria-live="polite" aria-atomic="true">
      {text}
    </div>
  );
}
