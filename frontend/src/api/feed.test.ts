import { describe, expect, it } from 'vitest';
import { ApiClient } from './client';
import { EventFeed, type FeedState } from './feed';
import type { AuditEvent } from './types';

const ev = (seq: number) => ({ seq, time: '', session: '', call_id: '', kind: 'tool.call', actor: 'x', payload: {}, prev_hash: '', hash: '' });
const sse = (seq: number) => `id: ${seq}\nevent: audit\ndata: ${JSON.stringify(ev(seq))}\n\n`;

function streamResponse(chunks: string[], keepOpen = false): Response {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(ctl) {
      for (const c of chunks) ctl.enqueue(enc.encode(c));
      if (!keepOpen) ctl.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
}

/** A fake daemon: each request is answered by the next scripted reply. */
function harness(replies: ((url: string) => Response | Promise<Response>)[]) {
  const urls: string[] = [];
  const fetchFn = (async (url: string) => {
    urls.push(url);
    const next = replies.shift();
    if (!next) return new Promise<Response>(() => {}); // hang: test is over
    return next(url);
  }) as unknown as typeof fetch;
  const api = new ApiClient({ token: () => 't', fetch: fetchFn });
  const got: number[] = [];
  const states: FeedState[] = [];
  let reconnected = 0;
  const feed = new EventFeed(api, 10, {
    events: (b: AuditEvent[]) => got.push(...b.map((e) => e.seq)),
    state: (s) => states.push(s),
    reconnected: () => reconnected++,
  });
  return { feed, urls, got, states, reconnected: () => reconnected };
}

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('EventFeed', () => {
  it('streams events split across chunks, skipping ones already seen', async () => {
    const all = ': live\n\n' + sse(9) + sse(11) + sse(12);
    const h = harness([() => streamResponse([all.slice(0, 30), all.slice(30, 95), all.slice(95)], true)]);
    h.feed.start();
    await until(() => h.got.length === 2);
    h.feed.stop();
    expect(h.got).toEqual([11, 12]);
    expect(h.urls[0]).toBe('/api/v1/events/stream?after=10');
    expect(h.states).toEqual(['live']);
  });

  it('on "dropped" reconnects from the last seq', async () => {
    const h = harness([() => streamResponse([sse(11), 'event: dropped\ndata: {}\n\n'], true), () => streamResponse([sse(12)], true)]);
    h.feed.start();
    await until(() => h.got.length === 2);
    h.feed.stop();
    expect(h.urls[1]).toBe('/api/v1/events/stream?after=11');
  });

  it('falls back to long-polling when the stream yields nothing', async () => {
    const h = harness([
      () => new Response(null, { status: 200 }),
      () => new Response(JSON.stringify({ events: [ev(11)], next_after: 11 }), { status: 200 }),
    ]);
    h.feed.start();
    await until(() => h.got.length === 1);
    h.feed.stop();
    expect(h.urls[1]).toBe('/api/v1/events?after=10&wait=25&limit=1000');
    expect(h.states).toContain('polling');
  });

  it('shows reconnecting while the daemon is down, then resyncs', async () => {
    const h = harness([
      () => Promise.reject(new TypeError('Failed to fetch')),
      () => streamResponse([sse(11)], true),
    ]);
    h.feed.start();
    await until(() => h.got.length === 1);
    h.feed.stop();
    expect(h.states).toEqual(['reconnecting', 'live']);
    expect(h.reconnected()).toBe(1);
  });
});
