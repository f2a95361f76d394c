// Turning a live query's answer into text for an agent: JSON as "field: value" lines per item, plain text as it is
// (HTML: html-text.ts); then cut at the deployment's maximum.
import type { AnswerDecl } from 'quad-submodule-kit';

/** The answer did not have the shape the query declares (a 502 for the caller). */
export class UnexpectedAnswer extends Error {
  override name = 'UnexpectedAnswer';
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
