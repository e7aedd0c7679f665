// Reads the one-rule TOML snippets cards carry (session_rule, always_rule:
// "[[rule]]\nbinary = \"/usr/bin/git\"\nargs = [\"add\"]\n…") and says in
// one sentence what the rule would let through, by the policy's own
// matching (args are a prefix of the arguments after the program).

export interface RuleFields {
  id?: string;
  action?: string;
  tool?: string;
  binary?: string;
  args?: string[];
  paths?: string[];
  domains?: string[];
  ports?: number[];
  reason?: string;
}

const STRING_KEYS = new Set(['id', 'action', 'tool', 'binary', 'reason']);
const LIST_KEYS = new Set(['args', 'paths', 'domains']);

/** Parses a [[rule]] snippet as the daemon writes it; null if it is not one. */
export function parseRule(text: string): RuleFields | null {
  const lines = text.split('\n').map((l) => l.trim());
  if (lines[0] !== '[[rule]]') return null;
  const out: RuleFields = {};
  for (const line of lines.slice(1)) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-z_]+)\s*=\s*(.*)$/.exec(line);
    if (!m) return null;
    const key = m[1]!;
    const r = new Reader(m[2]!);
    if (STRING_KEYS.has(key)) {
      const v = r.string();
      if (v === null || !r.done()) return null;
      (out as Record<string, unknown>)[key] = v;
    } else if (LIST_KEYS.has(key)) {
      const v = r.list(() => r.string());
      if (v === null || !r.done()) return null;
      (out as Record<string, unknown>)[key] = v;
    } else if (key === 'ports') {
      const v = r.list(() => r.int());
      if (v === null || !r.done()) return null;
      out.ports = v;
    } else return null;
  }
  return out;
}

class Reader {
  private i = 0;
  constructor(private readonly s: string) {}
  private ws() {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }
  done(): boolean {
    this.ws();
    return this.i === this.s.length || this.s[this.i] === '#';
  }
  string(): string | null {
    this.ws();
    const q = this.s[this.i];
    if (q === "'") {
      const end = this.s.indexOf("'", this.i + 1);
      if (end < 0) return null;
      const v = this.s.slice(this.i + 1, end);
      this.i = end + 1;
      return v;
    }
    if (q !== '"') return null;
    let out = '';
    for (this.i++; this.i < this.s.length; this.i++) {
      const c = this.s[this.i]!;
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.s[++this.i];
      const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\', e: '\x1b' };
      if (e !== undefined && e in simple) out += simple[e];
      else if (e === 'u' || e === 'U') {
        const n = e === 'u' ? 4 : 8;
        const hex = this.s.slice(this.i + 1, this.i + 1 + n);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) return null;
        const cp = parseInt(hex, 16);
        if (cp > 0x10ffff) return null;
        out += String.fromCodePoint(cp);
        this.i += n;
      } else return null;
    }
    return null;
  }
  int(): number | null {
    this.ws();
    const m = /^\d+/.exec(this.s.slice(this.i));
    if (!m) return null;
    this.i += m[0].length;
    return Number(m[0]);
  }
  list<T>(item: () => T | null): T[] | null {
    this.ws();
    if (this.s[this.i] !== '[') return null;
    this.i++;
    const out: T[] = [];
    for (;;) {
      this.ws();
      if (this.s[this.i] === ']') {
        this.i++;
        return out;
      }
      const v = item();
      if (v === null) return null;
      out.push(v);
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== ']') return null;
    }
  }
}

const quote = (s: string) => `“${s}”`;
const join = (xs: string[]) => (xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`);

/** One sentence: what calls the rule matches. */
export function describeRule(r: RuleFields): string {
  if (r.tool === 'network') {
    const ports = r.ports?.length ? `port ${join(r.ports.map(String))}` : 'ports 443 and 80';
    return `connections from any command to ${join((r.domains ?? []).map(quote))} on ${ports}`;
  }
  const bits: string[] = [];
  if (r.binary || r.args) {
    const prog = r.binary ? `runs of ${quote(r.binary)}` : 'commands';
    bits.push(r.args?.length ? `${prog} whose arguments start with ${quote(r.args.join(' '))}` : `${prog} with any arguments`);
  } else if (r.tool) bits.push(r.paths?.length ? `${r.tool} calls` : `every ${r.tool} call`);
  if (r.paths?.length) bits.push(`${bits.length ? 'on' : 'calls on'} ${join(r.paths.map(quote))}`);
  if (r.domains?.length) bits.push(`${bits.length ? 'to' : 'fetches from'} ${join(r.domains.map(quote))}`);
  return bits.join(' ') || 'every call';
}

/** describeRule of a snippet, or null when it cannot be read. */
export function describeSnippet(text: string | undefined): string | null {
  if (!text) return null;
  const r = parseRule(text);
  return r ? describeRule(r) : null;
}
