// The live audit feed. Primary: the SSE stream read through fetch() (so the
// bearer token can be sent). Fallback: long-polling /events?wait=25 when the
// stream cannot be read or goes quiet past its heartbeat. A dead daemon is
// retried with backoff; the last seq seen is the resume point, so nothing is
// missed or repeated across reconnects.

import { ApiClient, ApiError, query } from './client';
import { SSEParser } from './sse';
import type { AuditEvent, EventPage } from './types';
import { backoffMs, sleep } from '../lib/backoff';

export type FeedState = 'connecting' | 'live' | 'polling' | 'reconnecting';

export interface FeedHandlers {
  /** receivedAt is performance.now() when the bytes arrived. */
  events(batch: AuditEvent[], receivedAt: number): void;
  state(s: FeedState, err?: ApiError): void;
  /** After the daemon came back: snapshots (status, approvals) may be stale. */
  reconnected(): void;
}

// The daemon sends ": live" at once and ": ping" every 15 s: no first byte
// within FIRST_BYTE_MS means the stream is buffered somewhere (some webview
// transports do that), two missed pings mean it stalled.
const FIRST_BYTE_MS = 5_000;
const STALL_MS = 35_000;
const POLL_WAIT_S = 25;
// While long-polling, try the stream again now and then.
const RETRY_STREAM_MS = 120_000;

class StreamUnusable extends Error {}

export class EventFeed {
  private ctl = new AbortController();
  private after: number;
  private failures = 0;
  private state: FeedState = 'connecting';

  constructor(
    private readonly api: ApiClient,
    after: number,
    private readonly h: FeedHandlers,
  ) {
    this.after = after;
  }

  get lastSeq(): number {
    return this.after;
  }

  start(): void {
    void this.run();
  }

  stop(): void {
    this.ctl.abort();
  }

  private setState(s: FeedState, err?: ApiError): void {
    if (s === this.state && !err) return;
    const wasDown = this.state === 'reconnecting';
    this.state = s;
    this.h.state(s, err);
    if (wasDown && (s === 'live' || s === 'polling')) this.h.reconnected();
  }

  private async run(): Promise<void> {
    const signal = this.ctl.signal;
    let pollUntil = 0;
    while (!signal.aborted) {
      try {
        if (Date.now() < pollUntil) await this.pollOnce(signal);
        else await this.stream(signal);
        this.failures = 0;
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof StreamUnusable) {
          pollUntil = Date.now() + RETRY_STREAM_MS;
          continue;
        }
        const apiErr = err instanceof ApiError ? err : new ApiError('Cannot reach the Gatehouse daemon.', 0, '/api/v1/events/stream');
        this.setState('reconnecting', apiErr);
        await sleep(backoffMs(this.failures++), signal);
      }
    }
  }

  private emit(batch: AuditEvent[], at: number): void {
    if (batch.length === 0) return;
    const fresh = batch.filter((e) => e.seq > this.after);
    if (fresh.length === 0) return;
    this.after = fresh[fresh.length - 1]!.seq;
    this.h.events(fresh, at);
  }

  private async stream(signal: AbortSignal): Promise<void> {
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let stall: ReturnType<typeof setTimeout> | undefined;
    let stalled = false;
    const arm = (ms: number) => {
      clearTimeout(stall);
      stall = setTimeout(() => {
        stalled = true;
        ctl.abort();
      }, ms);
    };
    try {
      arm(FIRST_BYTE_MS);
      const res = await this.api.raw('/api/v1/events/stream' + query({ after: this.after }), {
        signal: ctl.signal,
        headers: { Accept: 'text/event-stream' },
      });
      if (!res.body) throw new StreamUnusable('no readable body');
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      const parser = new SSEParser();
      let sawBytes = false;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        arm(STALL_MS);
        if (!sawBytes) {
          sawBytes = true;
          this.setState('live');
        }
        const at = performance.now();
        const batch: AuditEvent[] = [];
        for (const msg of parser.push(decoder.decode(value, { stream: true }))) {
          if (msg.event === 'audit') batch.push(JSON.parse(msg.data) as AuditEvent);
          else if (msg.event === 'dropped') {
            // Fell behind: resume from the last seq on a fresh stream.
            this.emit(batch, at);
            return;
          }
        }
        this.emit(batch, at);
      }
      if (!sawBytes) throw new StreamUnusable('stream closed before any data');
      // A clean close (daemon shutting down): the loop reconnects.
      throw new ApiError('The daemon closed the event stream.', 0, '/api/v1/events/stream');
    } catch (err) {
      if (stalled) throw new StreamUnusable('stream stalled');
      throw err;
    } finally {
      clearTimeout(stall);
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async pollOnce(signal: AbortSignal): Promise<void> {
    const page = await this.api.request<EventPage>('GET', '/api/v1/events' + query({ after: this.after, wait: POLL_WAIT_S, limit: 1000 }), undefined, signal);
    this.setState('polling');
    this.emit(page.events, performance.now());
  }
}
