// Splits a typed command line into argv for the policy tester, with the
// quoting people type in a shell ('…', "…", backslash). No expansion:
// Gatehouse runs argv directly, never through a shell.

export function splitArgs(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

/** "policy.toml:12: unknown key" → 12 */
export function errorLine(message: string): number | null {
  const m = /:(\d+)(?::\d+)?:/.exec(message);
  return m ? Number(m[1]) : null;
}
