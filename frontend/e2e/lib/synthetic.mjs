// Serves GET /api/v1/events from a synthetic log of `total` events inside
// the browser's network layer, so the timeline can be measured against a
// 100,000-event history without writing 100,000 rows into a daemon first.
// Everything else (status, stream, approvals) still goes to the real daemon.

const KINDS = ['tool.call', 'policy.decision', 'exec.started', 'exec.finished', 'tool.result'];

function event(seq) {
  const kind = KINDS[seq % KINDS.length];
  const session = `s_synthetic${String(Math.floor(seq / 500)).padStart(4, '0')}`;
  const payload =
    kind === 'tool.call'
      ? { tool: 'run_command', args: { argv: ['go', 'test', `./pkg${seq % 97}/...`] } }
      : kind === 'policy.decision'
        ? { tool: 'run_command', verdict: 'allow', reason: 'harmless command' }
        : kind === 'exec.finished'
          ? { exit_code: 0, duration_ms: seq % 900, stdout_bytes: seq % 4096, stderr_bytes: 0 }
          : kind === 'tool.result'
            ? { tool: 'run_command', is_error: false, bytes: 120, preview: `ok pkg${seq % 97}`, outcome: { outcome: 'ok' } }
            : { argv: ['go', 'test'], backend: 'bwrap' };
  return {
    seq,
    time: new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString(),
    session,
    call_id: `c_${Math.floor(seq / 5)}`,
    kind,
    actor: kind === 'tool.call' ? 'agent:synthetic' : kind === 'policy.decision' ? 'policy' : 'system',
    payload,
    prev_hash: '',
    hash: `h${seq}`,
  };
}

export async function serveSyntheticEvents(page, total) {
  const requests = [];
  await page.route(
    (url) => url.pathname === '/api/v1/events',
    async (route) => {
      const q = new URL(route.request().url()).searchParams;
      requests.push(q.toString());
      const after = Number(q.get('after') ?? 0);
      const before = q.get('before') ? Number(q.get('before')) : total + 1;
      const limit = Math.min(1000, Number(q.get('limit') ?? 100));
      const desc = q.get('order') === 'desc';
      const events = [];
      if (desc) for (let s = before - 1; s > after && events.length < limit; s--) events.push(event(s));
      else for (let s = after + 1; s < before && s <= total && events.length < limit; s++) events.push(event(s));
      await route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ events, next_after: desc ? after : (events.at(-1)?.seq ?? after) }),
      });
    },
  );
  return requests;
}
