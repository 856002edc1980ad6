/**
 * What text the admin API accepts in a JSON string, a path or query parameter and the token's
 * `sub`: Unicode scalar values (RFC 8259 8.2: no unpaired surrogate) without NUL or any other
 * C0/C1 control character (U+0000–U+001F, U+007F–U+009F). Every field of this API is a single
 * line, so tab, CR and LF are refused too; only multi-line fields (PEM, RFC 7468) may hold CR and LF.
 * See docs/security.md#text-at-the-edge.
 */
export interface TextRuleOptions {
  /** CR and LF allowed (PEM blocks). */
  multiLine?: boolean;
}

const LF = 0x0a;
/** NUL, and a surrogate not part of a pair (matched on UTF-16 units: no `u` flag). */
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const CR = 0x0d;

/** Why `text` is refused (a short phrase for `errors[].message`), or undefined when it is acceptable. */
export function textProblem(text: string, options: TextRuleOptions = {}): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return 'contains an unpaired surrogate (not Unicode text)';
      i++;
      continue;
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return 'contains an unpaired surrogate (not Unicode text)';
    if (unit === 0) return 'contains NUL (U+0000)';
    if (options.multiLine && (unit === LF || unit === CR)) continue;
    if (unit < 0x20 || (unit >= 0x7f && unit <= 0x9f))
      return `contains the control character ${codePointName(unit)}`;
  }
  return undefined;
}

/** Length in characters (code points), as users count them; not UTF-16 units. */
export function characterLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/** At most `max` characters, never cutting one in half (a surrogate pair stays whole or goes). */
export function truncateCharacters(text: string, max: number, ellipsis = ''): string {
  if (text.length <= max) return text;
  let out = '';
  let count = 0;
  for (const character of text) {
    if (count === max) return out + ellipsis;
    out += character;
    count++;
  }
  return out;
}

/**
 * Text as the database stores it: well-formed UTF-16 (an unpaired surrogate becomes U+FFFD, as
 * UTF-8 encoding would make it) and no NUL (which PostgreSQL `text` cannot hold). Whatever is hashed
 * over stored text goes through this first, so the hash covers exactly what is kept.
 */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

function codePointName(unit: number): string {
  return `U+${unit.toString(16).toUpperCase().padStart(4, '0')}`;
}
