// A live query's HTML answer as readable lines for an agent: page chrome, scripts and forms dropped; one line per
// block, table cells joined by " | ". Loaded on the first HTML answer (cheerio is large; most processes never parse one).
import { load } from 'cheerio';

const DROPPED = 'script, style, noscript, template, svg, iframe, nav, header, footer, form, aside, button, select, input, textarea, '
  + '[role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true], [hidden]';
const BLOCKS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'table', 'ul', 'ol', 'dl', 'section', 'article', 'main',
  'div', 'li', 'tr', 'dt', 'dd', 'caption', 'figcaption', 'address', 'br', 'hr', 'thead', 'tbody', 'tfoot', 'body']);
const CELLS = new Set(['td', 'th']);
/** Markup nested deeper than this is left out: no real page nests so deep, and the walk stays bounded. */
const MAX_DEPTH = 200;

interface Node { type: string; name?: string; data?: string; children?: Node[] }

export function htmlToText(html: string, select?: string): string {
  const $ = load(html);
  $(DROPPED).remove();
  let roots = select ? $(select) : $('main');
  if (roots.length === 0) roots = $('body');
  const lines: string[] = [];
  let line = '';
  const endLine = () => {
    if (line.trim()) lines.push(line.replace(/\s+/g, ' ').trim());
    line = '';
  };
  // An explicit stack (not recursion): depth of the page cannot overflow it. A string closes the element it names.
  const stack: (Node | { close: string })[] = (roots.toArray() as Node[]).reverse();
  const depth = new WeakMap<object, number>();
  for (const r of stack) depth.set(r, 0);
  while (stack.length) {
    const item = stack.pop()!;
    if ('close' in item) {
      if (BLOCKS.has(item.close)) endLine();
      continue;
    }
    if (item.type === 'text') {
      line += item.data ?? '';
      continue;
    }
    if (!item.name || !item.children) continue;
    if (BLOCKS.has(item.name)) endLine();
    else if (CELLS.has(item.name) && line.trim()) line += ' | ';
    const d = depth.get(item) ?? 0;
    stack.push({ close: item.name });
    if (d >= MAX_DEPTH) continue;
    for (let i = item.children.length - 1; i >= 0; i--) {
      depth.set(item.children[i]!, d + 1);
      stack.push(item.children[i]!);
    }
  }
  endLine();
  return lines.join('\n');
}
