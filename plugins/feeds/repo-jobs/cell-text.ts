// What a table cell says once its Markdown and HTML are taken away: plain text, the links it holds, and the list of
// locations. The job lists write cells with a small, known set of markup (bold, links, images, <a>, <strong>, <div>,
// <br>, <details>), in Markdown pipe tables and in HTML <td> cells alike, so a few regular expressions and string
// scans do; no HTML parser is needed.

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const LINE_BREAK = /<\/?br\s*\/?>/gi;

/**
 * `text` with each Markdown link `open` label `](` url `)` replaced by its label (`keepLabel`) or by nothing: what
 * `/\[([^\]]*)\]\([^)]*\)/g` replaces with `$1` (open `[`) and `/!\[…/g` with `''` (open `![`), in one pass. The
 * patterns read on to the next `]` from every opening bracket, so a cell of brackets with no `](…)` cost a quadratic
 * scan; here an opening that fails rules out every opening before the `]` it reached.
 */
function replaceLinks(text: string, open: '[' | '![', keepLabel: boolean): string {
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const start = text.indexOf(open, from);
    if (start === -1) break;
    const close = text.indexOf(']', start + open.length);
    if (close === -1) break; // no later opening has a `]` after it either
    if (text[close + 1] !== '(') {
      from = close + 1; // every opening before `close` reaches this same `]`
      continue;
    }
    const end = text.indexOf(')', close + 2);
    if (end === -1) break; // nor a `)` after its `](`
    out += text.slice(copied, start) + (keepLabel ? text.slice(start + open.length, close) : '');
    copied = from = end + 1;
  }
  return out + text.slice(copied);
}

/** `text` without its `<…>` tags: what `/<[^>]*>/g` removes, without rescanning the rest from every unclosed `<`. */
const withoutTags = (text: string) => replaceTags(text, () => '');

/** `text` with each `<…>` tag replaced by `replacement(tag length)`, in one pass. */
function replaceTags(text: string, replacement: (length: number) => string): string {
  let out = '';
  let copied = 0;
  for (;;) {
    const start = text.indexOf('<', copied);
    if (start === -1) break;
    const end = text.indexOf('>', start + 1);
    if (end === -1) break;
    out += text.slice(copied, start) + replacement(end + 1 - start);
    copied = end + 1;
  }
  return out + text.slice(copied);
}

/** Cell text without markup, whitespace collapsed; `<br>` becomes a space. */
export function plainText(cell: string): string {
  // Images say "Apply"/"Simplify", not content.
  const images = replaceLinks(cell.replace(LINE_BREAK, ' '), '![', false);
  const text = withoutTags(replaceLinks(images, '[', true)).replace(/(\*\*|__|`)/g, '');
  return decodeEntities(text).replace(/\s+/g, ' ').trim();
}

/**
 * Every http(s) link of a cell, in the order they appear: HTML `href`s, Markdown `(url)`s and bare addresses written
 * as text (`https://jobs.example/1`). An address inside a link's markup or label is not counted twice.
 */
export function cellLinks(cell: string): string[] {
  const marked = [...anchorHrefs(cell), ...markdownUrls(cell)];
  const found = [...marked, ...bareUrls(cell)].sort((a, b) => a.at - b.at);
  const seen = new Set<string>();
  const links: string[] = [];
  for (const link of found) {
    const url = link.url.trim();
    if (!/^https?:\/\//i.test(url) || seen.has(url)) continue;
    seen.add(url);
    links.push(url);
  }
  return links;
}

interface FoundLink { at: number; url: string }

/**
 * Addresses written as text, outside tags (an `href` is read by anchorHrefs) and outside a Markdown link's `(url)`.
 * The address runs to the first space, quote, `<`, `>`, `|`, `)` or `]`; a sentence's final `.` or `,` is dropped.
 * One pattern without nested repetition over the cell: linear.
 */
function bareUrls(cell: string): FoundLink[] {
  const found: FoundLink[] = [];
  const text = withoutTagsKeepingLength(cell);
  for (const m of text.matchAll(/https?:\/\/[^\s"'<>|)\]]+/gi)) {
    if (text[m.index - 1] === '(' && text[m.index - 2] === ']') continue; // a Markdown link's target
    if (text[m.index - 2] === ']' && text[m.index - 1] === '<') continue;
    let end = m[0].length;
    while (end > 0 && '.,;:!?'.includes(m[0][end - 1]!)) end--; // a loop, not /[.,]+$/ (quadratic on a run of dots)
    found.push({ at: m.index, url: m[0].slice(0, end) });
  }
  return found;
}

/** `text` with each `<…>` tag blanked out with spaces, so positions stay those of the cell. */
const withoutTagsKeepingLength = (text: string) => replaceTags(text, (length) => ' '.repeat(length));

/**
 * The `href` of each `<a …>` tag, read inside the tag only (up to its `>`): a scan rather than
 * `/<a\s[^>]*?href…/`, which reads on to the end of the cell from every unclosed `<a ` (quadratic).
 */
function anchorHrefs(cell: string): FoundLink[] {
  const found: FoundLink[] = [];
  const lower = cell.toLowerCase();
  for (let at = lower.indexOf('<a'); at !== -1; at = lower.indexOf('<a', at + 2)) {
    if (!/\s/.test(cell[at + 2] ?? '')) continue;
    const end = cell.indexOf('>', at + 3);
    if (end === -1) break; // no later tag is closed either
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(cell.slice(at + 3, end));
    if (href) found.push({ at, url: decodeEntities(href[1] ?? href[2]) });
    at = end - 1;
  }
  return found;
}

/**
 * The URL of each Markdown link `](url)` or `](<url>)`. The URL stops at the first `)`, space, `>` or `]`, so a
 * match from one `](` never reads past the next `]`: linear over a cell of repeated unclosed links.
 */
function markdownUrls(cell: string): FoundLink[] {
  const found: FoundLink[] = [];
  for (const m of cell.matchAll(/\]\(\s*<?(https?:\/\/[^)\s>\]]+)>?\s*\)/gi)) found.push({ at: m.index, url: m[1] });
  return found;
}

/**
 * The locations of a cell. A `<details>` list counts only what follows its `<summary>` (the summary says "5
 * locations"); entries are separated by `<br>` in any spelling or by semicolons. Commas are not separators: they
 * sit inside one location ("Austin, TX").
 */
export function cellLocations(cell: string): string[] {
  const list = detailsList(cell) ?? cell;
  return list
    .split(/<\/?br\s*\/?>|;/i)
    .map(plainText)
    .filter((location) => location !== '');
}

/**
 * What follows the `</summary>` of the cell's first `<details>`, up to its `</details>` (or the end); null when the
 * cell has no such list. Found with index scans: a pattern read on to the end of the cell from every `<details`.
 */
function detailsList(cell: string): string | null {
  const lower = cell.toLowerCase();
  const open = lower.indexOf('<details');
  if (open === -1) return null;
  const openEnd = lower.indexOf('>', open);
  const summaryEnd = openEnd === -1 ? -1 : lower.indexOf('</summary>', openEnd);
  if (summaryEnd === -1) return null;
  const from = summaryEnd + '</summary>'.length;
  const close = lower.indexOf('</details>', from);
  return cell.slice(from, close === -1 ? cell.length : close);
}
