// Caps how deep the elements of an HTML page nest, before cheerio parses it. parse5 (cheerio's parser) and
// css-select (its selectors) take time quadratic in the depth of nesting: a crawled page of 100,000 nested <div>s,
// half a megabyte, would hold the thread for minutes. Start tags deeper than the cap, and their end tags, become a
// space, so their text stays and stays apart. The scan is one pass of a regular expression over the tags that
// follows the parser's rules roughly (void and raw text elements, the implied end tags of p, li, dd, dt, cells and
// options, end tags it ignores), erring towards counting too deep: a real page nests far less than the cap, a page
// made to nest deep is cut.

/** Deeper than any real page; browsers cap their DOM depth around 512 too. */
export const MAX_NESTING = 512;

/**
 * A comment, or a tag: `<`, an optional `/`, the name, then (after a space or `/`, so name and attributes never
 * compete for a character) attributes with quoted values, up to `>`. Every part stops at `<`, and the `>` is optional:
 * a tag the page leaves open ends before the next `<` (or at the end), so no attempt reads past the next `<` and the
 * scan stays linear however the page is made (`<a` repeated, quotes left open). A parser would read such a tag on
 * (a `<` in an attribute); here it counts as a tag where it starts and the next `<` as another: more tags, never fewer.
 */
const TAG = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][^\s/<>]*)(?:[\s/](?:[^<>"']|"[^<"]*"|'[^<']*')*)?>?/g;
const words = (s: string) => new Set(s.split(' '));
const VOID = words('area base br col embed hr img input link meta param source track wbr');
// noscript is raw text too: cheerio parses with scripting on.
const RAW_TEXT = words('script style textarea title xmp noembed noframes noscript iframe');
/** The HTML "special" elements: an end tag of another name that meets one of them is ignored (closes nothing). */
const SPECIAL = words('address applet area article aside base basefont bgsound blockquote body br button caption '
  + 'center col colgroup dd details dir div dl dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3 '
  + 'h4 h5 h6 head header hgroup hr html iframe img input keygen li link listing main marquee menu meta nav noembed '
  + 'noframes noscript object ol p param plaintext pre script search section select source style summary table tbody '
  + 'td template textarea tfoot th thead title tr track ul wbr xmp');
/** An end tag of a special element closes it only when none of these lies in between ("in scope"). */
const SCOPE = words('applet caption html table td th marquee object template');
/** Start tags that first close an open <p> in (button) scope. */
const CLOSES_P = words('address article aside blockquote center details dialog dir div dl fieldset figcaption figure '
  + 'footer header hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 h5 h6 pre listing form li dd dt '
  + 'plaintext table hr xmp');
/** Start tags that close the open element of their group when it is the current one (`<td>` after `<th>`). */
const SIBLINGS: Record<string, string> = { option: 'option', tr: 'tr', td: 'cell', th: 'cell' };

export function capNesting(html: string, maxDepth = MAX_NESTING): string {
  if (html.length < maxDepth * 3) return html; // too short to nest that deep ("<a>" is 3 characters)
  const open: string[] = [];
  const dropped = new Map<string, number>();
  const out: string[] = [];
  let last = 0;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(html); m; m = TAG.exec(html)) {
    const name = m[2]?.toLowerCase();
    if (!name) continue; // a comment
    const keep = m[1] ? closeTag(open, dropped, name) : openTag(open, dropped, name, selfClosing(open, m[0]), maxDepth);
    if (!keep) {
      out.push(html.slice(last, m.index), ' ');
      last = TAG.lastIndex;
    }
    if (!m[1] && RAW_TEXT.has(name)) TAG.lastIndex = rawTextEnd(html, name, TAG.lastIndex);
  }
  out.push(html.slice(last));
  return out.join('');
}

/** Whether to keep a start tag; notes it as open (kept) or dropped. */
function openTag(open: string[], dropped: Map<string, number>, name: string, selfClosing: boolean, max: number): boolean {
  if (VOID.has(name) || selfClosing) return true;
  impliedEnds(open, name);
  if (open.length < max) {
    open.push(name);
    return true;
  }
  dropped.set(name, (dropped.get(name) ?? 0) + 1);
  return false;
}

/** The open elements a start tag closes first, as the parser does (a subset of its rules). */
function impliedEnds(open: string[], name: string): void {
  if (name === 'li') closeListItem(open, ['li']);
  else if (name === 'dd' || name === 'dt') closeListItem(open, ['dd', 'dt']);
  if (CLOSES_P.has(name)) closeInScope(open, 'p');
  const group = SIBLINGS[name];
  if (group && SIBLINGS[open[open.length - 1]] === group) open.pop();
}

/** `<li>` closes an open li unless a special element other than address, div, p lies in between. */
function closeListItem(open: string[], names: string[]): void {
  for (let i = open.length - 1; i >= 0; i--) {
    if (names.includes(open[i])) {
      open.length = i;
      return;
    }
    if (SPECIAL.has(open[i]) && open[i] !== 'address' && open[i] !== 'div' && open[i] !== 'p') return;
  }
}

function closeInScope(open: string[], name: string): void {
  for (let i = open.length - 1; i >= 0; i--) {
    if (open[i] === name) {
      open.length = i;
      return;
    }
    if (SCOPE.has(open[i]) || open[i] === 'button') return;
  }
}

/** `<x/>` closes itself only in SVG and MathML; in HTML the slash means nothing (`<div/>` opens a div). */
function selfClosing(open: string[], tag: string): boolean {
  return tag.endsWith('/>') && (open.includes('svg') || open.includes('math'));
}

/** Whether to keep an end tag: dropped when its start tag was, else it closes its open element as the parser would. */
function closeTag(open: string[], dropped: Map<string, number>, name: string): boolean {
  const count = dropped.get(name) ?? 0;
  if (count > 0) {
    dropped.set(name, count - 1);
    return false;
  }
  const barrier = SPECIAL.has(name) ? SCOPE : SPECIAL;
  for (let i = open.length - 1; i >= 0; i--) {
    if (open[i] === name) {
      open.length = i;
      break;
    }
    if (barrier.has(open[i])) break;
  }
  return true;
}

/** Where the raw text of a `<script>`, `<style>`… ends: its end tag, else the end of the page. */
function rawTextEnd(html: string, name: string, from: number): number {
  const end = new RegExp(`</${name}[\\s/>]`, 'ig');
  end.lastIndex = from;
  return end.exec(html)?.index ?? html.length;
}
