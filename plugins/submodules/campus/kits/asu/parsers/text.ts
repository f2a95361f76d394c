// Small helpers the ASU parsers share: a value as one clean line (HTML tags and entities of feed fields dropped, by a
// linear scan: no regular expression over the whole field), lists that may be missing, keyword matching.
import { AnswerShapeError } from 'quad-submodule-kit';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: '\'', '#39': '\'', nbsp: ' ', '#039': '\'' };

/** Text without tags (`<…>` dropped) and with the common entities decoded. */
export function stripTags(html: string): string {
  let out = '';
  let inTag = false;
  for (let i = 0; i < html.length; i++) {
    const ch = html[i]!;
    if (inTag) {
      if (ch === '>') { inTag = false; out += ' '; }
      continue;
    }
    if (ch === '<') { inTag = true; continue; }
    if (ch === '&') {
      const end = html.indexOf(';', i);
      const name = end > i && end - i <= 8 ? html.slice(i + 1, end) : '';
      if (name && ENTITIES[name] !== undefined) { out += ENTITIES[name]; i = end; continue; }
    }
    out += ch;
  }
  return out;
}

/** A field as one line: strings (tags dropped, spaces collapsed), numbers; anything else empty. Cut at `max`. */
export function line(value: unknown, max = 300): string {
  const text = typeof value === 'string' ? stripTags(value) : typeof value === 'number' ? String(value) : '';
  const one = text.split(/\s+/).filter(Boolean).join(' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The value as a list (a missing one is empty). */
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The value as an object (anything else is empty). */
export const record = (value: unknown): Record<string, unknown> =>
  (value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {});

/** The list at `key` of an answer, or AnswerShapeError naming it. */
export function required(answer: unknown, key: string): unknown[] {
  const value = record(answer)[key];
  if (!Array.isArray(value)) throw new AnswerShapeError(`no "${key}" list`);
  return value;
}

/** True when every word of `keywords` is in the text (letter case ignored); no keywords match everything. */
export function hasWords(text: string, keywords: string | undefined): boolean {
  const words = (keywords ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const hay = text.toLowerCase();
  return words.every((w) => hay.includes(w));
}

/** Parts that are not empty, joined. */
export const joined = (parts: (string | undefined | null | false)[], by = ' | ') => parts.filter(Boolean).join(by);
