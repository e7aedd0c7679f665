// Error banner: the API's own sentence, dismissable; plus the connection
// warning while the daemon is unreachable, and failing checkpoints (undo
// is gone for new calls until they work again).

import { checkpointProblem } from '../lib/checkpoints';
import { when } from '../lib/format';
import { dismiss, store } from '../state/app';
import { useStore } from '../state/store';
import { PublicBanner } from './PublicBanner';

export function Banner() {
  const notices = useStore(store, (s) => s.notices);
  const conn = useStore(store, (s) => s.conn);
  const checkpoints = useStore(store, (s) => checkpointProblem(s.status, when));
  return (
    <div class="banners">
      {conn === 'reconnecting' && (
        <div class="banner warn" role="status">
          <span>
            Reconnecting… The Gatehouse daemon is not answering; this page retries on its own. If it does not come back, start it again (<code>gatehouse serve</code> or
            the desktop app).
          </span>
        </div>
      )}
      <PublicBanner />
      {checkpoints && (
        <div class="banner warn checkpoints-failing" role="alert">
          <span>{checkpoints}</span>
        </div>
      )}
      {notices.map((n) => (
        <div key={n.id} class={`banner ${n.tone}`} role={n.tone === 'error' ? 'alert' : 'status'}>
          <span>{n.message}</span>
          <button type="button" class="btn small" onClick={() => dismiss(n.id)} aria-label="Dismiss message">
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}
