// The full audit event: header facts and the payload as pretty JSON.

import { useEffect, useRef } from 'preact/hooks';
import type { AuditEvent } from '../api/types';
import { CopyButton } from '../ui/common';
import { href } from '../ui/router';

export function EventDetail({ event, onClose }: { event: AuditEvent; onClose(): void }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [event.seq]);
  const json = JSON.stringify(event.payload ?? {}, null, 2);
  return (
    <aside
      class="event-detail"
      ref={ref}
      tabIndex={-1}
      aria-labelledby="event-detail-h"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <header>
        <h2 id="event-detail-h">
          <span class={`kind k-${event.kind.split('.')[0]}`}>{event.kind}</span> #{event.seq}
        </h2>
        <button type="button" class="btn small" onClick={onClose} aria-label="Close event details">
          Close
        </button>
      </header>
      <dl class="facts-grid">
        <dt>Time</dt>
        <dd>{new Date(event.time).toLocaleString()}</dd>
        <dt>Actor</dt>
        <dd>{event.actor}</dd>
        {event.session && (
          <>
            <dt>Session</dt>
            <dd>
              <a href={href('sessions', event.session)}>{event.session}</a>
            </dd>
          </>
        )}
        {event.call_id && (
          <>
            <dt>Call</dt>
            <dd>
              <code>{event.call_id}</code>
            </dd>
          </>
        )}
        <dt>Hash</dt>
        <dd>
          <code class="hash" title={`previous: ${event.prev_hash}`}>
            {event.hash}
          </code>
        </dd>
      </dl>
      <div class="payload-head">
        <h3>Payload</h3>
        <CopyButton text={JSON.stringify(event, null, 2)} label="Copy event JSON" />
      </div>
      <pre class="payload" tabIndex={0}>
        {json}
      </pre>
    </aside>
  );
}
