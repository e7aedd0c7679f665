import { describe, expect, it, vi } from 'vitest';
import { ApiClient, ApiError, query } from './client';

function client(res: Response | Error, token: string | null = 'tok') {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchFn = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    if (res instanceof Error) throw res;
    return res;
  }) as unknown as typeof fetch;
  const onUnauthorized = vi.fn();
  return { c: new ApiClient({ token: () => token, fetch: fetchFn, onUnauthorized }), calls, onUnauthorized };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('ApiClient', () => {
  it('sends the bearer token and JSON body', async () => {
    const { c, calls } = client(json(200, { ok: true }));
    await expect(c.post('/api/v1/kill', { via: 'ui' })).resolves.toEqual({ ok: true });
    const h = calls[0]!.init.headers as Record<string, string>;
    expect(h.Authorization).toBe('Bearer tok');
    expect(h['Content-Type']).toBe('application/json');
    expect(calls[0]!.init.body).toBe('{"via":"ui"}');
  });

  it('sends no Authorization header without a token (desktop)', async () => {
    const { c, calls } = client(json(200, {}), null);
    await c.get('/api/v1/status');
    expect((calls[0]!.init.headers as Record<string, string>).Authorization).toBeUndefined();
  });

  it("uses the daemon's error sentence", async () => {
    const { c } = client(json(400, { error: 'policy.toml:12: unknown action "alow"' }));
    const err = await c.put('/api/v1/policy', { text: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe('policy.toml:12: unknown action "alow"');
    expect((err as ApiError).status).toBe(400);
  });

  it('describes a 404 without a JSON body as not offered yet', async () => {
    const { c } = client(new Response('404 page not found', { status: 404 }));
    const err = (await c.get('/api/v1/x').catch((e: unknown) => e)) as ApiError;
    expect(err.notFound).toBe(true);
    expect(err.message).toContain('does not offer /api/v1/x');
  });

  it('reports an unreachable daemon with status 0', async () => {
    const { c } = client(new TypeError('Failed to fetch'));
    const err = (await c.get('/api/v1/status').catch((e: unknown) => e)) as ApiError;
    expect(err.unreachable).toBe(true);
    expect(err.message).toBe('Cannot reach the Gatehouse daemon.');
  });

  it('calls onUnauthorized on 401', async () => {
    const { c, onUnauthorized } = client(json(401, { error: 'missing or invalid token' }));
    await expect(c.get('/api/v1/status')).rejects.toThrow('missing or invalid token');
    expect(onUnauthorized).toHaveBeenCalledOnce();
  });

  it('rejects malformed JSON replies with a sentence', async () => {
    const { c } = client(new Response('{not json', { status: 200 }));
    await expect(c.get('/api/v1/status')).rejects.toThrow('malformed reply');
  });

  it('lets aborts through untouched', async () => {
    const abort = new DOMException('aborted', 'AbortError');
    const { c } = client(abort as unknown as Error);
    await expect(c.get('/api/v1/status')).rejects.toBe(abort);
  });
});

describe('query', () => {
  it('drops empty values and encodes the rest', () => {
    expect(query({ session: 's 1', kind: '', after: 0, limit: 50, x: undefined })).toBe('?session=s+1&after=0&limit=50');
    expect(query({})).toBe('');
  });
});
