// Why a card went away when the person did not decide it here (the agent
// cancelled the call, it expired, it was answered elsewhere). One line in
// the Approvals header, in place of the key help: it never changes the
// header's height, so it never moves the cards under the pointer, and it
// covers nothing.

import type { ComponentChildren } from 'preact';
import { dismissNote, store } from '../state/app';
import { useStore } from '../state/store';
import { Vis } from './Visible';

export function CardNoteLine({ fallback }: { fallback?: ComponentChildren }) {
  const notes = useStore(store, (s) => s.cardNotes);
  const n = notes[notes.length - 1];
  return (
    <p class={n ? 'card-note-line' : 'muted keys-help'} role="status" aria-live="polite" data-note-for={n?.approval}>
      {n ? (
        <>
          <strong>{n.text}</strong>
          <span class="muted">
            {' — '}
            <Vis text={n.what} />
          </span>
          {notes.length > 1 && <span class="muted"> (+{notes.length - 1} more)</span>}{' '}
          <button type="button" class="btn link small" onClick={() => dismissNote(n.id)} aria-label="Dismiss this note">
            Dismiss
          </button>
        </>
      ) : (
        fallback
      )}
    </p>
  );
}
