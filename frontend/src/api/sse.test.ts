import { describe, expect, it } from 'vitest';
import { SSEParser } from './sse';

const stream = 'id: 7\nevent: audit\ndata: {"seq":7}\n\n: ping\n\nevent: dropped\ndata: {"reason":"x"}\n\n';

function feed(chunks: string[]) {
  const p = new SSEParser();
  return { msgs: chunks.flatMap((c) => p.push(c)), parser: p };
}

describe('SSEParser', () => {
  it('parses whole messages, skipping comments', () => {
    const { msgs } = feed([stream]);
    expect(msgs).toEqual([
      { event: 'audit', data: '{"seq":7}', id: '7' },
      { event: 'dropped', data: '{"reason":"x"}', id: '7' },
    ]);
  });

  it('gives the same result for every split point and one-char chunks', () => {
    const whole = feed([stream]).msgs;
    for (let i = 0; i <= stream.length; i++) {
      expect(feed([stream.slice(0, i), stream.slice(i)]).msgs).toEqual(whole);
    }
    expect(feed([...stream]).msgs).toEqual(whole);
  });

  it('handles CRLF and CR line endings, including CRLF split across chunks', () => {
    const crlf = stream.replaceAll('\n', '\r\n');
    const whole = feed([stream]).msgs;
    expect(feed([crlf]).msgs).toEqual(whole);
    for (let i = 0; i <= crlf.length; i++) {
      expect(feed([crlf.slice(0, i), crlf.slice(i)]).msgs).toEqual(whole);
    }
    expect(feed([stream.replaceAll('\n', '\r')]).msgs).toEqual(whole);
  });

  it('joins multi-line data and defaults the event name', () => {
    expect(feed(['data: a\ndata:b\ndata\n\n']).msgs).toEqual([{ event: 'message', data: 'a\nb\n', id: '' }]);
  });

  it('holds an unterminated message until its blank line arrives', () => {
    const p = new SSEParser();
    expect(p.push('id: 3\ndata: x\n')).toEqual([]);
    expect(p.push('\n')).toEqual([{ event: 'message', data: 'x', id: '3' }]);
  });

  it('does not dispatch events without data and resets the event name', () => {
    expect(feed(['event: audit\n\ndata: y\n\n']).msgs).toEqual([{ event: 'message', data: 'y', id: '' }]);
  });
});
