// Turning a live query's answer into text for an agent: HTML as readable lines (page chrome, scripts and forms dropped;
// one line per block, table cells joined by " | "), JSON as "field: value" lines per item, plain text as it is; then
// cut at the deployment's maximum.
import { load } from 'cheerio';
import type { AnswerDecl } from 'quad-submodule-kit';

/** The answer did not have the shape the query declares (a 502 for the caller). */
export class UnexpectedAnswer extends Error {
  override name = 'UnexpectedAnswer';
}

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

/** The value at a dot path (`a.b.0.c`), or undefined. */
function at(value: unknown, path: string | undefined): unknown {
  if (!path) return value;
  let v = value;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

const show = (v: unknown) => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : JSON.stringify(v));

export function jsonToText(value: unknown, answer: Extract<AnswerDecl, { kind: 'json' }>): string {
  const items = at(value, answer.items);
  if (!Array.isArray(items)) throw new UnexpectedAnswer(`the answer has no list${answer.items ? ` at "${answer.items}"` : ''}`);
  if (items.length === 0) return answer.empty ?? 'No results.';
  return items.map((item) => answer.fields
    .map((f) => [f, at(item, f)] as const)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([f, v]) => `${f}: ${show(v)}`)
    .join('\n')).filter(Boolean).join('\n\n');
}

/** Text cut to at most `max` characters (a cut ends with an ellipsis, within the limit). */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end--; // never half a surrogate pair
  return `${text.slice(0, end)}…`;
}
