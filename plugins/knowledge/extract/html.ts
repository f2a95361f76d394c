// Readable text of an HTML page for the knowledge module (crawled pages, uploaded .html files): its title, and its
// main content as plain text, one line per block and a blank line around paragraphs, so words of separate blocks
// never run together and passages can be cut at paragraph breaks. Page chrome (navigation, header, footer, forms,
// asides), code (scripts, styles) and hidden parts are dropped before reading; `<main>`, else `<article>`, is the
// content when the page marks one. A hostile page cannot make it slow by nesting deep (nesting.ts caps the depth
// first) nor overflow the stack (the walk is a loop, not a recursion); the text stops at `maxChars`.
import { load, type CheerioAPI } from 'cheerio';
import { tooLong } from './failed.js';
import { capNesting } from './nesting.js';

const DROPPED = 'script, style, noscript, template, svg, iframe, nav, header, footer, form, aside, button, select, input, '
  + 'textarea, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true], [hidden]';

/** Blocks set apart by a blank line. */
const PARAGRAPHS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'table', 'ul', 'ol', 'dl',
  'section', 'article', 'main', 'figure', 'hr', 'address', 'details', 'fieldset', 'hgroup']);
/** Blocks on lines of their own. */
const LINES = new Set(['div', 'li', 'tr', 'dt', 'dd', 'caption', 'figcaption', 'summary', 'legend', 'option',
  'center', 'body', 'thead', 'tbody', 'tfoot', 'menu', 'search']);
const CELLS = new Set(['td', 'th']);

/** The part of a parsed node the walk reads (domhandler's nodes fit it). */
interface Node {
  type: string;
  name?: string;
  data?: string;
  children?: Node[];
}

/** The page's title and text; an ExtractFailed once the text passes `maxChars`. */
export function htmlText(html: string, maxChars = Infinity): { title: string; text: string } {
  const $ = load(capNesting(html));
  const title = titleOf($);
  $(DROPPED).remove();
  return { title, text: blockText(contentRoots($), maxChars) };
}

const collapse = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

/** `<title>`, else og:title, else the first `<h1>` (read before the page chrome holding it is dropped). */
function titleOf($: CheerioAPI): string {
  return collapse($('title').not('svg title').first().text())
    || collapse($('meta[property="og:title"], meta[name="og:title"]').first().attr('content'))
    || collapse($('h1').first().text());
}

/** The outermost `<main>`s, else `[role=main]`s, else `<article>`s, else the body. */
function contentRoots($: CheerioAPI): Node[] {
  for (const selector of ['main', '[role=main]', 'article']) {
    const outermost = $(selector).filter((_, el) => $(el).parents(selector).length === 0);
    if (outermost.length > 0) return outermost.toArray();
  }
  return $('body').toArray();
}

/** The text under the roots, blocks as lines; `<pre>` keeps its own line breaks and indentation. */
function blockText(roots: Node[], maxChars: number): string {
  const out = new Lines(maxChars);
  let pre = 0;
  // A string on the stack closes the element of that name.
  const stack: Array<Node | string> = [...roots].reverse();
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      if (item === 'pre') pre--;
      if (PARAGRAPHS.has(item)) out.blank();
      else if (LINES.has(item)) out.end();
    } else if (item.type === 'text') {
      if (pre > 0) out.raw(item.data ?? '');
      else out.inline(item.data ?? '');
    } else if (item.name && item.children) {
      open(out, item.name);
      if (item.name === 'pre') pre++;
      stack.push(item.name);
      for (let i = item.children.length - 1; i >= 0; i--) stack.push(item.children[i]);
    }
  }
  return out.text();
}

function open(out: Lines, name: string): void {
  if (PARAGRAPHS.has(name)) out.blank();
  else if (LINES.has(name)) out.end();
  else if (name === 'br') out.breakLine();
  else if (CELLS.has(name)) out.cell();
}

/** Text built line by line: inline text collapses its whitespace, blocks end lines. */
class Lines {
  private lines: string[] = [];
  private line = '';
  /** Characters in `lines`, with their line breaks. */
  private size = 0;

  constructor(private readonly maxChars: number) {}

  inline(text: string): void {
    const collapsed = text.replace(/\s+/g, ' ');
    this.line += this.line === '' || this.line.endsWith(' ') ? collapsed.trimStart() : collapsed;
    this.check();
  }

  raw(text: string): void {
    const [first, ...rest] = text.split('\n');
    this.line += first;
    for (const line of rest) this.breakLine(line);
    this.check();
  }

  /** Stops the walk once the text built so far is longer than a source holds. */
  private check(): void {
    if (this.size + this.line.length > this.maxChars) throw tooLong(this.maxChars);
  }

  /** Ends the line when it has text (nested blocks make no empty lines). */
  end(): void {
    if (this.line.trim() !== '') this.breakLine();
  }

  /** Ends the line even when empty: two `<br>` make a blank line. */
  breakLine(next = ''): void {
    const line = this.line.trimEnd();
    this.lines.push(line);
    this.size += line.length + 1;
    this.line = next;
  }

  /** A blank line, one however many blocks end or start here (so the size counted is the text's). */
  blank(): void {
    this.end();
    if (this.lines[this.lines.length - 1] === '') return;
    this.lines.push('');
    this.size++;
  }

  /** Cells after the first of a row go on its line after a " | ". */
  cell(): void {
    if (this.line.trim() !== '') this.line = `${this.line.trimEnd()} | `;
  }

  text(): string {
    this.end();
    return trimNewlines(this.lines.join('\n').replace(/\n{3,}/g, '\n\n'));
  }
}

/** Without its leading and trailing line breaks (by index: `\n+$` would retry at every break of a long run). */
function trimNewlines(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === '\n') start++;
  while (end > start && text[end - 1] === '\n') end--;
  return text.slice(start, end);
}
