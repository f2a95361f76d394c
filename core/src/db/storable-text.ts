// Text PostgreSQL can store, for rows written from data we do not control (error messages, stacks, request ids):
// a text column refuses the NUL character and a lone UTF-16 surrogate cannot be encoded, so either would make the
// write itself fail. Both become U+FFFD; long text is cut.

/** A NUL or a lone surrogate: in `u` mode a pair reads as one code point, so `\p{Cs}` matches only halves alone. */
const UNSTORABLE = /[\u0000\p{Cs}]/gu;

/** Whether PostgreSQL can store `text` as it is (validation refuses input that it cannot). */
export function isStorableText(text: string): boolean {
  UNSTORABLE.lastIndex = 0;
  return !UNSTORABLE.test(text);
}

/** `text` with what PostgreSQL cannot store replaced by U+FFFD, cut at `max` characters (default: no cut). */
export function storableText(text: string, max = Infinity): string {
  const clean = text.replace(UNSTORABLE, '\uFFFD');
  if (clean.length <= max) return clean;
  // Never cut between the two halves of a surrogate pair (that would make a lone surrogate again).
  const end = /[\uD800-\uDBFF]/.test(clean[max - 2] ?? '') ? max - 2 : max - 1;
  return `${clean.slice(0, end)}…`;
}
