// Export: where the audit goes besides this machine (the config's
// [export]) and how far each sink is. Read-only: the person's config file
// decides; this only shows whether the team's collector is getting it.

import { useEffect } from 'preact/hooks';
import { ErrorLine } from '../ui/common';
import { useLoad } from '../ui/hooks';

export interface ExportSink {
  sink: 'otlp' | 'ocsf';
  target: string;
  state: 'starting' | 'current' | 'sending' | 'failing';
  sent_seq: number;
  sent_at?: string;
  backlog: number;
  dropped: number;
  last_error?: string;
  last_error_at?: string;
  failures: number;
}

interface ExportDoc {
  enabled: boolean;
  sinks: ExportSink[];
}

const SINK_NAMES: Record<ExportSink['sink'], string> = { otlp: 'OpenTelemetry collector', ocsf: 'OCSF file' };

export function Export() {
  const doc = useLoad<ExportDoc>('/api/v1/export');
  const { reload } = doc;
  useEffect(() => {
    const t = setInterval(reload, 5000);
    return () => clearInterval(t);
  }, [reload]);
  if (doc.error?.notFound) return null;
  return (
    <section aria-labelledby="export-h">
      <h2 id="export-h">Export</h2>
      {doc.error && <ErrorLine message={doc.error.message} />}
      {doc.data && !doc.data.enabled && <p class="muted">The audit stays on this machine. Set [export] in the config to send it to your team's collector.</p>}
      {doc.data?.enabled && (
        <table class="export-sinks">
          <thead>
            <tr>
              <th scope="col">Sink</th>
              <th scope="col">State</th>
              <th scope="col">Last sent</th>
              <th scope="col">Backlog</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {doc.data.sinks.map((s) => (
              <tr key={s.sink}>
                <td>
                  {SINK_NAMES[s.sink] ?? s.sink} <code>{s.target}</code>
                </td>
                <td>{s.state}</td>
                <td>{s.sent_seq > 0 ? `#${s.sent_seq}${s.sent_at ? ` at ${new Date(s.sent_at).toLocaleString()}` : ''}` : 'nothing yet'}</td>
                <td>
                  {s.backlog} event{s.backlog === 1 ? '' : 's'}
                  {s.dropped > 0 && ` (${s.dropped} skipped past the bound)`}
                </td>
                <td>{s.last_error ? `${s.last_error}${s.failures > 0 ? ` (${s.failures} in a row)` : ''}` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
