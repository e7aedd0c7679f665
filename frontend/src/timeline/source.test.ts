import { describe, expect, it } from 'vitest';
import type { AuditEvent, EventPage } from '../api/types';
import { NO_FILTER } from './filter';
import { BLOCK, CallSource, ListSource, MAX_CACHED, SeqSource, isGrouped, type Getter } from './source';

const ev = (seq: number, kind = 'tool.call', session = 's1'): AuditEvent => ({
  seq,
  time: '2026-01-01T00:00:00Z',
  session,
  call_id: '',
  kind,
  actor: 'system',
  payload: { n: seq },
  prev_hash: '',
  hash: '',
});

/** A fake /events over seqs 1..n (with optional holes), honouring after/before/limit/order/kind. */
function fakeApi(n: number, opts: { holes?: Set<number>; kindOf?: (s: number) => string } = {}) {
  const requests: string[] = [];
  const all = Array.from({ length: n }, (_, i) => ev(i + 1, opts.kindOf?.(i + 1))).filter((e) => !opts.holes?.has(e.seq));
  const api: Getter = {
    async get<T>(path: string): Promise<T> {
      requests.push(path);
      const q = new URL(path, 'http://x').searchParams;
      const after = Number(q.get('after') ?? 0);
      const before = Number(q.get('before') ?? Infinity);
      const limit = Number(q.get('limit') ?? 100);
      const kind = q.get('kind') ?? '';
      let list = all.filter((e) => e.seq > after && e.seq < before && (!kind || e.kind === kind));
      if (q.get('order') === 'desc') list = list.reverse();
      const page: EventPage = { events: list.slice(0, limit), next_after: 0 };
      return page as T;
    },
  };
  return { api, requests };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('SeqSource', () => {
  it('maps rows to seqs newest first and loads only visible blocks', async () => {
    const { api, requests } = fakeApi(100_000);
    const s = new SeqSource(100_000, api, () => {});
    expect(s.count).toBe(100_000);
    expect(s.row(0)).toBeNull();
    s.ensure(0, 30);
    await flush();
    expect(requests).toEqual([`/api/v1/events?after=${99_800}&limit=${BLOCK}&order=asc`]);
    expect((s.row(0) as AuditEvent).seq).toBe(100_000);
    expect((s.row(29) as AuditEvent).seq).toBe(99_971);
    // Far down the list: one block, near seq 50,000.
    s.ensure(50_000, 50_030);
    await flush();
    expect((s.row(50_000) as AuditEvent).seq).toBe(50_000);
    expect(requests).toHaveLength(2); // seqs 49971..50000 sit in one block
  });

  it('marks missing seqs in a loaded block as gaps', async () => {
    const { api } = fakeApi(300, { holes: new Set([299]) });
    const s = new SeqSource(300, api, () => {});
    s.ensure(0, 5);
    await flush();
    expect(s.row(1)).toBe('gap');
  });

  it('shows seeded events without a request', async () => {
    const { api, requests } = fakeApi(1000);
    const s = new SeqSource(1000, api, () => {}, [ev(998), ev(999), ev(1000)]);
    s.ensure(0, 3);
    await flush();
    expect(requests).toEqual([]);
    expect((s.row(2) as AuditEvent).seq).toBe(998);
    s.ensure(0, 4);
    await flush();
    expect(requests).toHaveLength(1);
  });

  it('drops far-away blocks once the cache is full, and refetches them on return', async () => {
    const n = MAX_CACHED * 3;
    const { api, requests } = fakeApi(n);
    const s = new SeqSource(n, api, () => {});
    s.live(Array.from({ length: MAX_CACHED + 10 }, (_, i) => ev(n - i))); // the newest rows, in hand
    s.ensure(n - 30, n); // view the oldest rows
    await flush();
    expect(s.row(0)).toBeNull(); // the newest block was evicted
    expect((s.row(n - 1) as AuditEvent).seq).toBe(1);
    const before = requests.length;
    s.ensure(0, 30);
    await flush();
    expect(requests.length).toBe(before + 1);
    expect((s.row(0) as AuditEvent).seq).toBe(n);
  });

  it('live events grow the top and report inserted rows', () => {
    const s = new SeqSource(10, fakeApi(10).api, () => {});
    expect(s.live([ev(11), ev(12)])).toBe(2);
    expect(s.count).toBe(12);
    expect((s.row(0) as AuditEvent).seq).toBe(12);
  });
});

describe('ListSource', () => {
  it('pages older matches with before= as the end nears', async () => {
    const { api, requests } = fakeApi(2000, { kindOf: (s) => (s % 2 ? 'tool.call' : 'exec.started') });
    const s = new ListSource({ ...NO_FILTER, kind: 'tool.call' }, api, () => {});
    s.ensure(0, 30);
    await flush();
    expect(s.count).toBe(500);
    expect((s.row(0) as AuditEvent).seq).toBe(1999);
    s.ensure(420, 450);
    await flush();
    expect(s.count).toBe(1000);
    expect(requests[1]).toContain('before=1001');
  });

  it('text search keeps scanning until the screen is full or the log ends', async () => {
    const { api } = fakeApi(5000);
    const s = new ListSource({ ...NO_FILTER, text: '"n":123' }, api, () => {});
    s.ensure(0, 30);
    for (let i = 0; i < 10; i++) await flush();
    expect(s.done).toBe(true);
    // "n":123, "n":1230..1239 → 11 matches
    expect(s.count).toBe(11);
    expect(s.progress).toBe('11 matches in 5,000 events');
  });

  it('prepends matching live events once', () => {
    const s = new ListSource({ ...NO_FILTER, session: 's1' }, fakeApi(0).api, () => {});
    expect(s.live([ev(5), ev(6, 'tool.call', 'other'), ev(7)])).toBe(2);
    expect(s.live([ev(7)])).toBe(0);
    expect((s.row(0) as AuditEvent).seq).toBe(7);
  });
});

describe('CallSource', () => {
  // Calls of five rows each (c_k holds seqs 5k..5k+4), as the synthetic e2e log.
  const callEv = (seq: number): AuditEvent => ({ ...ev(seq, ['tool.call', 'policy.decision', 'exec.started', 'exec.finished', 'tool.result'][seq % 5]!), call_id: `c_${Math.floor(seq / 5)}` });
  function callApi(n: number) {
    const requests: string[] = [];
    const all = Array.from({ length: n }, (_, i) => callEv(i + 1));
    const api: Getter = {
      async get<T>(path: string): Promise<T> {
        requests.push(path);
        const q = new URL(path, 'http://x').searchParams;
        const before = Number(q.get('before') ?? Infinity);
        const limit = Number(q.get('limit') ?? 100);
        const list = all.filter((e) => e.seq < before).reverse();
        return { events: list.slice(0, limit), next_after: 0 } as T;
      },
    };
    return { api, requests, all };
  }
  const header = (s: CallSource, i: number) => {
    const r = s.row(i);
    return r && r !== 'gap' && isGrouped(r) && r.step < 0 && r.entry.type === 'call' ? r.entry.id : null;
  };

  it('opens on the events in hand, then pages older calls in as the end nears', async () => {
    const { api, requests, all } = callApi(10_000);
    const s = new CallSource({ ...NO_FILTER }, api, () => {}, 10_000, all.slice(-300));
    expect(s.count).toBe(61); // c_1940 … c_2000 (c_1940 only partly, until older rows come)
    expect(header(s, 0)).toBe('c_2000');
    s.ensure(0, 30);
    await flush();
    expect(requests).toEqual(['/api/v1/events?order=desc&limit=1000&before=9701']);
    expect(s.count).toBe(261);
    expect(s.groups.call('c_1940')!.events).toHaveLength(5);
    expect(s.done).toBe(false);
  });

  it('sends only the session to the server; other filters keep whole calls', async () => {
    const { api, requests } = callApi(50);
    const s = new CallSource({ ...NO_FILTER, session: 's1', kind: 'exec.' }, api, () => {});
    s.ensure(0, 30);
    await flush();
    expect(requests).toEqual(['/api/v1/events?order=desc&limit=1000&session=s1']);
    expect(s.done).toBe(true);
    expect(s.count).toBe(10); // c_0 … c_9 ran a command; c_10 (seq 50, its tool.call so far) not yet
    s.toggle(0);
    expect(s.count).toBe(15); // c_9 and its five steps
    expect(s.progress).toBe('10 matches in 50 events');
  });

  it('folds live rows into their call, and counts rows that came in above the one being read', () => {
    const { api, all } = callApi(20);
    const s = new CallSource({ ...NO_FILTER }, api, () => {}, 20, all);
    expect(s.done).toBe(true);
    expect(s.count).toBe(5); // c_0 … c_4
    expect(s.live([callEv(21), callEv(22)], 2)).toBe(0); // c_4 gains its rows in place
    expect(s.count).toBe(5);
    expect(s.live([callEv(25)], 2)).toBe(1); // c_5 on top
    expect(header(s, 0)).toBe('c_5');
    expect(s.live([{ ...callEv(30), session: 's2' }], 0)).toBe(1); // unfiltered: every session
    const other = new CallSource({ ...NO_FILTER, session: 's1' }, api, () => {}, 20, all);
    expect(other.live([{ ...callEv(30), session: 's2' }], 0)).toBe(0);
  });
});
