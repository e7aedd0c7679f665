import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../api/types';
import { NO_FILTER, filterFromParams, filterToParams, isUnfiltered, matches, viewOf } from './filter';

const e: AuditEvent = { seq: 9, time: '', session: 's_a', call_id: 'c_1', kind: 'tool.call', actor: 'agent:claude', payload: { tool: 'run_command', args: { argv: ['git', 'Push'] } }, prev_hash: '', hash: '' };

describe('filter', () => {
  it('matches kind families, exact kinds, session and actor', () => {
    expect(matches({ ...NO_FILTER, kind: 'tool.' }, e)).toBe(true);
    expect(matches({ ...NO_FILTER, kind: 'tool.result' }, e)).toBe(false);
    expect(matches({ ...NO_FILTER, session: 's_b' }, e)).toBe(false);
    expect(matches({ ...NO_FILTER, actor: 'agent:claude' }, e)).toBe(true);
  });
  it('text search needs every word, case-insensitively, anywhere in the event', () => {
    expect(matches({ ...NO_FILTER, text: 'push GIT' }, e)).toBe(true);
    expect(matches({ ...NO_FILTER, text: 'push pull' }, e)).toBe(false);
  });
  it('round-trips through URL params', () => {
    const f = { session: 's_a', kind: 'tool.', actor: '', text: 'git push' };
    expect(filterFromParams(filterToParams(f))).toEqual(f);
    expect(isUnfiltered(filterFromParams(''))).toBe(true);
    expect(isUnfiltered({ ...NO_FILTER, text: '  ' })).toBe(true);
  });
  it('one row per call unless the URL asks for every event; the view is no filter', () => {
    expect(viewOf(filterFromParams(''))).toBe('calls');
    const raw = filterFromParams('view=events&kind=exec.');
    expect(viewOf(raw)).toBe('events');
    expect(filterToParams(raw)).toBe('kind=exec.&view=events');
    expect(filterToParams({ ...NO_FILTER, view: 'calls' })).toBe('');
    expect(isUnfiltered({ ...NO_FILTER, view: 'events' })).toBe(true);
  });
});
