// Why a card went away when the person did not decide it here (the agent
// cancelled the call, it expired, it was answered elsewhere). Fixed in a
// corner, so a note never moves the cards under the pointer.

import { dismissNote, store } from '../state/app';
import { useStore } from '../state/store';
import { Vis } from './Visible';

export function CardNotes() {
  const notes = useStore(store, (s) => s.cardNotes);
  return (
    <div class="card-notes" role="status" aria-live="polite">
      {notes.map((n) => (
        <div key={n.id} class="card-note" data-note-for={n.approval}>
          <p>
            <strong>{n.text}</strong>
          </p>
          <p class="muted small">
            <Vis text={n.what} />
          </p>
          <button type="button" class="btn small" onClick={() => dismissNote(n.id)} aria-label="Dismiss this note">
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}
