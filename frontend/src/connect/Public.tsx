// Decide from another device: open an exposure (an expiring approvals
// page behind a one-time link, shown once here as a QR code), see the
// open ones, stop them.

import { useEffect, useState } from 'preact/hooks';
import type { ExposuresReply, OpenedExposure } from '../api/types';
import { DURATIONS, exposureLine } from '../lib/exposures';
import { api, reportError } from '../state/app';
import { Code } from '../ui/common';
import { useLoad } from '../ui/hooks';

export function Public() {
  const list = useLoad<ExposuresReply>('/api/v1/exposures');
  const [forDur, setFor] = useState('1h');
  const [opened, setOpened] = useState<OpenedExposure | null>(null);
  const [busy, setBusy] = useState(false);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  if (list.error?.notFound) return null; // a daemon without exposures

  const start = async () => {
    setBusy(true);
    try {
      setOpened(await api.post<OpenedExposure>('/api/v1/exposures', { for: forDur }));
      list.reload();
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  const stop = async () => {
    setBusy(true);
    try {
      await api.del('/api/v1/exposures');
      setOpened(null);
      list.reload();
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  const open = list.data?.exposures ?? [];

  return (
    <section class="public" aria-labelledby="public-h">
      <h2 id="public-h">Decide from another device</h2>
      <p>
        Opens a page of its own that shows only the cards waiting, with Allow once and Deny, behind a link that works once, for one device. It ends by itself, or when you
        stop it. Nothing else of Gatehouse is reachable through it.
      </p>
      <div class="public-start">
        <label>
          Open for{' '}
          <select value={forDur} onChange={(e) => setFor((e.target as HTMLSelectElement).value)} aria-label="How long the page stays open">
            {DURATIONS.map((d) => (
              <option key={d.value} value={d.value}>
                {d.label}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="button" class="btn primary" disabled={busy} onClick={() => void start()}>
          Open the approvals page
        </button>{' '}
        {open.length > 0 && (
          <button type="button" class="btn danger" disabled={busy} onClick={() => void stop()}>
            Stop {open.length === 1 ? 'it' : `all ${open.length}`}
          </button>
        )}
      </div>
      {opened && open.some((x) => x.id === opened.id) && (
        <div class="public-opened">
          <p>Scan this with your phone; the code and the link work once and are not shown again once you leave this screen.</p>
          {/* The SVG is drawn by the daemon from the link alone: paths of numbers, no markup from anyone else. */}
          <div class="qr" role="img" aria-label="QR code of the link" dangerouslySetInnerHTML={{ __html: opened.qr_svg }} />
          <Code text={opened.link} label="Link" />
          {opened.tls && (
            <p>
              The page uses Gatehouse’s own certificate; check that your phone shows SHA-256 <code>{opened.fingerprint}</code>.
            </p>
          )}
          {opened.tunnel?.note && <p>{opened.tunnel.note}</p>}
        </div>
      )}
      {open.length > 0 && (
        <ul class="public-open">
          {open.map((x) => (
            <li key={x.id}>{exposureLine(x, now)}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
