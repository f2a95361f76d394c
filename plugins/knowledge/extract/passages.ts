// A document's text cut into passages for the knowledge module to embed and search. Each passage is a body of at
// most chunkChars characters, after a title line when there is a title. Bodies end at the strongest boundary in the
// second half of their window (a paragraph break, else a line break, else a sentence end, else a space; a long word
// is cut hard), so passages are neither tiny nor cut mid-sentence when a sentence end is near. With an overlap, each
// body after the first starts with exactly the last `overlap` characters of the previous body, so a reader strips
// them by comparison. One pass over the text, each window scanned about once: O(n).

export interface PassageOptions {
  /** The longest body, in JavaScript string length; the title line is not counted. At least 10. */
  chunkChars: number;
  /** How many characters each body after the first repeats from the end of the previous one; 0 to chunkChars / 2. */
  overlap: number;
  /** Put on its own line before every body, whitespace collapsed. Default: none. */
  title?: string;
}

/**
 * The passages of `text`, in order: `${title}\n${body}`, or `body` without a title; [] for blank text.
 * Without overlap the bodies are the text, trimmed at each cut. With overlap, a body after the first is the
 * previous body's last `overlap` characters, verbatim, then the whitespace of the cut ('\n\n', '\n', ' ', or ''
 * after a hard cut inside a word), then new text.
 */
export function splitPassages(text: string, options: PassageOptions): string[] {
  const { chunkChars, overlap } = options;
  if (!Number.isInteger(chunkChars) || chunkChars < 10) throw new RangeError('chunkChars must be an integer of at least 10');
  if (!Number.isInteger(overlap) || overlap < 0 || overlap > chunkChars / 2) {
    throw new RangeError('overlap must be an integer from 0 to chunkChars / 2');
  }
  const title = (options.title ?? '').replace(/\s+/g, ' ').trim();
  const bodies = splitBodies(text, chunkChars, overlap);
  return title ? bodies.map((body) => `${title}\n${body}`) : bodies;
}

interface Cut {
  /** Where the body's new text ends (exclusive). */
  to: number;
  /** Where the next body's new text starts: `to` past the whitespace. */
  next: number;
}

function splitBodies(text: string, chunkChars: number, overlap: number): string[] {
  let end = text.length;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  const bodies: string[] = [];
  let start = skipSpace(text, 0, end);
  let joint = '';
  while (start < end) {
    const prefix = bodies.length > 0 && overlap > 0 ? bodies[bodies.length - 1].slice(-overlap) + joint : '';
    const budget = chunkChars - prefix.length;
    // The first body must be at least `overlap` long when another follows, for that one to repeat its end.
    const need = bodies.length === 0 ? Math.max(overlap, 1) : 1;
    const cut = end - start <= budget ? { to: end, next: end } : findCut(text, start, end, budget, need);
    bodies.push(prefix + text.slice(start, cut.to));
    joint = separator(text, cut.to, cut.next);
    start = cut.next;
  }
  return bodies;
}

/** Where to end new text starting at `start`, at most `budget` long and at least `need` (end - start > budget). */
function findCut(text: string, start: number, end: number, budget: number, need: number): Cut {
  const lo = start + Math.max(need, Math.floor(budget / 2));
  const hi = start + budget;
  const boundary = bestBoundary(text, lo, hi);
  if (boundary >= 0) return { to: boundary, next: skipSpace(text, boundary, end) };
  const hard = hardCut(text, lo, hi);
  if (hard >= 0) return { to: hard, next: hard };
  // The whole window's second half is one whitespace run: end before it when that leaves enough text, else
  // (a short first line, then a run longer than half a passage) end inside it, so the first body is `need` long.
  let run = lo - 1;
  while (run > start && isSpace(text.charCodeAt(run - 1))) run--;
  const to = run - start >= need ? run : start + need;
  return { to, next: skipSpace(text, to, end) };
}

/** The latest start of a whitespace run in [lo, hi] of the strongest kind, or -1 when there is none. */
function bestBoundary(text: string, lo: number, hi: number): number {
  let best = -1;
  let bestStrength = -1;
  for (let j = hi; j >= lo; j--) {
    if (!isSpace(text.charCodeAt(j)) || isSpace(text.charCodeAt(j - 1))) continue;
    const strength = boundaryStrength(text, j);
    if (strength > bestStrength) {
      best = j;
      bestStrength = strength;
      if (strength === PARAGRAPH) break;
    }
  }
  return best;
}

const PARAGRAPH = 3;
const LINE = 2;
const SENTENCE = 1;
const SPACE = 0;

/** What the whitespace run starting at `j` ends: a paragraph (2+ line breaks), a line, a sentence, or a word. */
function boundaryStrength(text: string, j: number): number {
  let lines = 0;
  for (let k = j; k < text.length && isSpace(text.charCodeAt(k)); k++) {
    if (text.charCodeAt(k) === 10 && ++lines === 2) return PARAGRAPH;
  }
  if (lines === 1) return LINE;
  const before = text[j - 1];
  return before === '.' || before === '?' || before === '!' ? SENTENCE : SPACE;
}

/** The latest cut in [lo, hi] after a non-space character, not between the halves of a surrogate pair; else -1. */
function hardCut(text: string, lo: number, hi: number): number {
  for (let q = hi; q >= lo; q--) {
    const code = text.charCodeAt(q - 1);
    if (isSpace(code)) continue;
    const highSurrogate = code >= 0xd800 && code <= 0xdbff;
    return highSurrogate && q - 1 >= lo && !isSpace(text.charCodeAt(q - 2)) ? q - 1 : q;
  }
  return -1;
}

/** The whitespace between two bodies' new texts, reduced to what it separates. */
function separator(text: string, from: number, to: number): string {
  if (from === to) return '';
  let lines = 0;
  for (let k = from; k < to; k++) if (text.charCodeAt(k) === 10) lines++;
  return lines >= 2 ? '\n\n' : lines === 1 ? '\n' : ' ';
}

function skipSpace(text: string, i: number, end: number): number {
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  return i;
}

const UNICODE_SPACE = /\s/;

/** JavaScript's \s, with the ASCII cases answered without a regular expression. */
function isSpace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return UNICODE_SPACE.test(String.fromCharCode(code));
}
