// Incremental Server-Sent Events parser (the WHATWG event-stream format).
// EventSource cannot send an Authorization header, so the UI reads the stream
// with fetch() and feeds decoded text here chunk by chunk; chunks may split
// anywhere, including inside a CRLF pair.

export interface SSEMessage {
  event: string; // "message" when the stream named none
  data: string;
  id: string; // last event id seen so far on the stream
}

export class SSEParser {
  private buf = '';
  private skipLF = false; // previous chunk ended in CR; a leading LF belongs to it
  private data: string[] = [];
  private event = '';
  private lastId = '';
  private hasData = false;

  push(chunk: string): SSEMessage[] {
    const out: SSEMessage[] = [];
    let text = chunk;
    if (this.skipLF && text.startsWith('\n')) text = text.slice(1);
    this.skipLF = false;
    this.buf += text;
    let start = 0;
    for (let i = 0; i < this.buf.length; i++) {
      const c = this.buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(this.buf.slice(start, i), out);
      if (c === 13) {
        if (i + 1 === this.buf.length) this.skipLF = true;
        else if (this.buf.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.buf = this.buf.slice(start);
    return out;
  }

  private line(line: string, out: SSEMessage[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    if (line.startsWith(':')) return; // comment / heartbeat
    const colon = line.indexOf(':');
    let field = line;
    let value = '';
    if (colon >= 0) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
    }
    switch (field) {
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      // "retry" is ignored: reconnect timing is ours (backoff with jitter).
    }
  }

  private dispatch(out: SSEMessage[]): void {
    if (this.hasData) {
      out.push({ event: this.event || 'message', data: this.data.join('\n'), id: this.lastId });
    }
    this.data = [];
    this.hasData = false;
    this.event = '';
  }
}
