import { describe, expect, it } from 'vitest';
import type { Exposure } from '../api/types';
import { exposureLine, suspicions, timeLeft } from './exposures';

const now = Date.parse('2026-12-06T10:00:00Z');

describe('timeLeft', () => {
  it.each([
    ['2026-12-06T10:42:00Z', '42 minutes left'],
    ['2026-12-06T11:05:00Z', '1 hour 5 minutes left'],
    ['2026-12-06T12:00:00Z', '2 hours left'],
    ['2026-12-06T10:00:20Z', '1 minute left'],
    ['2026-12-06T09:59:00Z', 'ending now'],
    ['not a time', 'ending now'],
  ])('%s → %s', (iso, want) => {
    expect(timeLeft(iso, now)).toBe(want);
  });
});

describe('exposureLine', () => {
  const x: Exposure = {
    id: 'x_1',
    listen: '127.0.0.1:4000',
    url: 'http://127.0.0.1:4000/e/x_1/',
    tls: false,
    opened: '2026-12-06T09:00:00Z',
    expires: '2026-12-06T10:30:00Z',
    devices: 1,
    decisions: 2,
  };
  it('names where it listens', () => {
    expect(exposureLine(x, now)).toBe('Exposure x_1 on 127.0.0.1:4000, 30 minutes left; 1 device, 2 decisions.');
  });
  it('prefers the tunnel’s address', () => {
    expect(exposureLine({ ...x, tunnel: { command: ['t'], pid: 9, url: 'https://t.example.test' } }, now)).toContain('through https://t.example.test');
  });
});

describe('suspicions', () => {
  it('names a process once, however many connections it holds', () => {
    const lines = suspicions({
      processes: [
        { pid: 7, command: 'chromium', from: '127.0.0.1:6' },
        { pid: 7, command: 'chromium', from: '127.0.0.1:8' },
      ],
    });
    expect(lines).toHaveLength(1);
  });

  it('is quiet when nothing is seen', () => {
    expect(suspicions(undefined)).toEqual([]);
    expect(suspicions({ processes: [] })).toEqual([]);
  });
  it('names relayed requests by header and unknown programs by name', () => {
    const lines = suspicions({
      relayed: { at: '2026-12-06T09:00:00Z', headers: ['Via', 'X-Forwarded-For'], method: 'GET', path: '/', from: '127.0.0.1:5', count: 3 },
      processes: [{ pid: 42, command: 'socat', from: '127.0.0.1:6' }, { pid: 0, command: '', from: '127.0.0.1:7' }],
    });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('3 requests relayed');
    expect(lines[0]).toContain('were refused (carrying Via, X-Forwarded-For)');
    expect(lines[1]).toMatch(/^socat \(pid 42\)/);
    expect(lines[2]).toMatch(/^a process Gatehouse cannot see/);
  });
});
