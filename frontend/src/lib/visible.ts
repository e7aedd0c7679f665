// Makes invisible and direction-changing characters visible. Agents write
// argv, paths, questions and diffs; a Trojan-Source string (a right-to-left
// override, an isolate, a zero-width space) can make a command look like a
// harmless one it is not. Every such character becomes a marked token
// such as ⟨U+202E⟩, so the text shows what will run, in memory order.

/** One piece of text: plain, or one hidden character made visible. */
export type Part = string | Hidden;

export interface Hidden {
  /** The code point. */
  cp: number;
  /** ⟨U+202E⟩ */
  token: string;
  /** "right-to-left override", or "" when it has no short name here. */
  name: string;
}

// Control (C0, DEL, C1), format (bidi embeddings, overrides and isolates,
// zero-width characters, the BOM, tag characters: all of Cf), line and
// paragraph separators, and lone surrogates. The `u` flag makes \p classes
// work on code points, so astral format characters match too.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u115F\u1160\u3164\uFFA0]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');

const NAMES: Record<number, string> = {
  0x00: 'null',
  0x07: 'bell',
  0x08: 'backspace',
  0x09: 'tab',
  0x0a: 'line feed',
  0x0b: 'vertical tab',
  0x0c: 'form feed',
  0x0d: 'carriage return',
  0x1b: 'escape',
  0x7f: 'delete',
  0x85: 'next line',
  0x9b: 'control sequence introducer',
  0xad: 'soft hyphen',
  0x061c: 'Arabic letter mark',
  0x180e: 'Mongolian vowel separator',
  0x200b: 'zero-width space',
  0x200c: 'zero-width non-joiner',
  0x200d: 'zero-width joiner',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x2028: 'line separator',
  0x2029: 'paragraph separator',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2060: 'word joiner',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0xfeff: 'zero-width no-break space (BOM)',
};

export function hiddenChar(cp: number): Hidden {
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  return { cp, token: `⟨U+${hex}⟩`, name: NAMES[cp] ?? (cp >= 0xe0000 && cp <= 0xe007f ? 'tag character' : '') };
}

export interface VisibleOptions {
  /** Keep line feeds and tabs as they are (diffs, questions, scripts). */
  multiline?: boolean;
}

const PICTO = /\p{Extended_Pictographic}/u;

// A zero-width joiner between two emoji builds one emoji (👩‍💻): it hides
// nothing, so it stays.
function emojiJoiner(text: string, at: number): boolean {
  const before = [...text.slice(Math.max(0, at - 2), at)].pop() ?? '';
  const after = String.fromCodePoint(text.codePointAt(at + 1) ?? 0);
  return PICTO.test(before) && PICTO.test(after);
}

function kept(cp: number, text: string, at: number, o: VisibleOptions): boolean {
  if (cp === 0x200d) return emojiJoiner(text, at);
  return o.multiline === true && (cp === 0x0a || cp === 0x09);
}

/** Splits text into plain runs and hidden characters. */
export function visibleParts(text: string, o: VisibleOptions = {}): Part[] {
  const out: Part[] = [];
  let last = 0;
  let run = '';
  for (const m of text.matchAll(HIDDEN_ALL)) {
    const cp = m[0].codePointAt(0)!;
    const at = m.index;
    if (kept(cp, text, at, o)) continue;
    run += text.slice(last, at);
    if (run) out.push(run);
    run = '';
    out.push(hiddenChar(cp));
    last = at + m[0].length;
  }
  run += text.slice(last);
  if (run) out.push(run);
  return out;
}

/** The text with every hidden character replaced by its token. */
export function visibleText(text: string, o: VisibleOptions = {}): string {
  return visibleParts(text, o)
    .map((p) => (typeof p === 'string' ? p : p.token))
    .join('');
}

/** The distinct hidden characters in texts, in order of first appearance. */
export function hiddenIn(texts: readonly (string | undefined | null)[], o: VisibleOptions = {}): Hidden[] {
  const seen = new Map<number, Hidden>();
  for (const t of texts) {
    if (!t || !HIDDEN.test(t)) continue;
    for (const p of visibleParts(t, o)) if (typeof p !== 'string' && !seen.has(p.cp)) seen.set(p.cp, p);
  }
  return [...seen.values()];
}

/**
 * Writes each hidden character of a TOML snippet (other than line feeds and
 * tabs) as a \uXXXX escape, so a text box, which cannot mark them, shows
 * them. The daemon puts such characters only inside basic strings, where
 * the escape means the same character: the rule is unchanged.
 */
export function escapeHiddenToml(text: string): string {
  return visibleParts(text, { multiline: true })
    .map((p) => {
      if (typeof p === 'string') return p;
      if (p.cp >= 0xd800 && p.cp <= 0xdfff) return String.fromCharCode(p.cp); // no escape spells a lone surrogate
      const hex = p.cp.toString(16).toUpperCase();
      return p.cp > 0xffff ? `\\U${hex.padStart(8, '0')}` : `\\u${hex.padStart(4, '0')}`;
    })
    .join('');
}
