// Tells screen-reader users about new approval requests wherever they are
// in the app (the cards themselves may be on another screen).

import { useEffect, useRef, useState } from 'preact/hooks';
import { actorName, plural } from '../lib/format';
import { visibleText } from '../lib/visible';
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
      // Read out as shown: hidden characters by their code.
      const what = a.kind === 'question' ? `${actorName(a.actor)} asks: ${a.question ?? ''}` : a.kind === 'network' ? `Approval needed: ${actorName(a.actor)} wants to connect to ${a.domain ?? ''}:${a.port ?? ''}` : `Approval needed: ${actorName(a.actor)} wants ${a.tool}${a.argv ? ' ' + a.argv.join(' ') : ''}`;
      setText(visibleText(what, { multiline: true }));
    } else if (fresh.length > 1) {
      setText(plural(fresh.length, 'new approval request'));
    }
  }, [approvals]);
  return (
    <div class="sr-only" aria-live="polite" aria-atomic="true">
      {text}
    </div>
  );
}
