// Always-visible daemon state and the two big switches: pause/resume and
// the kill switch. Stopping all agents takes exactly one confirming click.
// The pending count is the Approvals tab's badge (and the window title),
// so the header fits one row at the desktop window's default width.

import { useEffect, useState } from 'preact/hooks';
import { killAll, pauseAll, resumeAll, store } from '../state/app';
import { useStore } from '../state/store';

export function StatusBar() {
  const status = useStore(store, (s) => s.status);
  const conn = useStore(store, (s) => s.conn);
  const [confirmKill, setConfirmKill] = useState(false);
  const [busy, setBusy] = useState(false);

  // An armed kill button disarms itself so it cannot be hit by accident later.
  useEffect(() => {
    if (!confirmKill) return;
    const t = setTimeout(() => setConfirmKill(false), 5000);
    return () => clearTimeout(t);
  }, [confirmKill]);

  const st = status?.state;
  // Pause/resume cannot work while the daemon is unreachable. The kill switch
  // stays enabled whatever the UI believes: a failed kill shows its error.
  const down = conn === 'reconnecting';
  const act = async (fn: () => Promise<void>) => {
    setBusy(true);
    await fn();
    setBusy(false);
  };

  return (
    <div class="statusbar" role="region" aria-label="Daemon status">
      <ul class="facts">
        <li class={`conn conn-${conn}`} aria-live="polite">
          {conn === 'live' ? 'Live' : conn === 'polling' ? 'Live (polling)' : conn === 'reconnecting' ? 'Reconnecting…' : 'Connecting…'}
        </li>
        <li title="Sandbox backend confining agent commands">
          Sandbox <strong>{status?.sandbox ?? '—'}</strong>
        </li>
        {!st?.killed && (
          <li>
            Sessions <strong>{st?.active_sessions ?? '—'}</strong>
          </li>
        )}
        {st?.killed ? (
          <li class="state killed" title="All agents were stopped; new calls are refused until you resume">
            All stopped
          </li>
        ) : st?.paused ? (
          <li class="state paused">Paused</li>
        ) : null}
      </ul>
      <div class="switches">
        {confirmKill ? null : st?.paused || st?.killed ? (
          <button type="button" class="btn" aria-label="Resume agents" title="Resume agents: new calls run again" disabled={busy || !status || down} onClick={() => act(resumeAll)}>
            Resume
          </button>
        ) : (
          <button type="button" class="btn" disabled={busy || !status || down} onClick={() => act(pauseAll)} title="New calls wait until you resume; nothing is stopped">
            Pause
          </button>
        )}
        {confirmKill ? (
          <span class="kill-confirm" role="group" aria-label="Confirm stopping all agents">
            <button
              type="button"
              class="btn kill armed"
              autoFocus
              disabled={busy}
              onClick={() => {
                setConfirmKill(false);
                void act(killAll);
              }}
            >
              Yes, stop everything
            </button>
            <button type="button" class="btn" onClick={() => setConfirmKill(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" class="btn kill" disabled={busy} onClick={() => setConfirmKill(true)} title="Ends every agent session, kills running commands and denies waiting calls">
            Stop all agents
          </button>
        )}
      </div>
    </div>
  );
}
