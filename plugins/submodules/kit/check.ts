// The check of a submodule's content: its shape (schema.ts), then what a schema cannot say — unique names, templates
// that name declared bases and parameters, patterns that compile, defaults that their own rules accept, parsers and
// transforms its code holds (code.ts). Each problem is `<field>: <what is wrong>`; the submodules module prefixes the
// package or kit that holds it.
import { Value } from '@sinclair/typebox/value';
import type { SubmoduleCode } from './code.js';
import { SubmoduleSchema, type ParamDecl, type SubmoduleContent } from './schema.js';

/** The `{name}`s of a template, in order. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([a-z][a-z0-9_]*)\}/g)].map((m) => m[1]!);
}

/** The accepted values of a parameter with a list (`values`, or the keys of `codes`), or null. */
export function choicesOf(param: ParamDecl): string[] | null {
  return param.values ? [...param.values] : param.codes ? Object.keys(param.codes) : null;
}

/** The site's code of an accepted value of a `codes` parameter (letter case ignored), or undefined. */
export function codeOf(param: ParamDecl, value: string): string | undefined {
  if (!param.codes) return undefined;
  const wanted = value.toLowerCase();
  const key = Object.keys(param.codes).find((k) => k.toLowerCase() === wanted);
  return key === undefined ? undefined : param.codes[key];
}

/** The items of a value: a `many` parameter's comma list (blank items dropped), else the value itself. */
export function itemsOf(param: ParamDecl, value: string): string[] {
  return param.many ? value.split(',').map((v) => v.trim()).filter(Boolean) : [value];
}

/** Why `value` is not accepted by the parameter, or null. */
export function paramProblem(param: ParamDecl, value: string): string | null {
  if (value.length > (param.max_length ?? 200)) return `is longer than ${param.max_length ?? 200} characters`;
  const choices = choicesOf(param);
  const items = itemsOf(param, value);
  if (param.many && items.length === 0) return 'is an empty list';
  if (!param.many && choices && value.includes(',') && !choices.includes(value)) {
    return `takes one value, not a list (one of ${choices.join(', ')})`;
  }
  const pattern = param.pattern ? new RegExp(`^(?:${param.pattern})$`) : null;
  for (const item of items) {
    const at = param.many ? `has "${item}", which ` : '';
    if (param.values && !param.values.includes(item)) return `${at}is not one of ${param.values.join(', ')}`;
    if (param.codes && codeOf(param, item) === undefined) return `${at}is not one of ${Object.keys(param.codes).join(', ')}`;
    if (pattern && !pattern.test(item)) return `${at}does not match ${param.pattern}`;
  }
  return null;
}

/** Header names a submodule may not set: the fetcher's own, and ones that would carry an identity. */
const RESERVED_HEADERS = new Set(['host', 'cookie', 'user-agent', 'content-length', 'connection', 'transfer-encoding', 'proxy-authorization']);

/** Content and code, as `defineSubmodule(content, code)` returns them. */
function split(content: unknown): { data: unknown; code: SubmoduleCode | undefined; codeProblem: string | null } {
  if (content === null || typeof content !== 'object' || !('code' in content)) return { data: content, code: undefined, codeProblem: null };
  const { code, ...data } = content as Record<string, unknown>;
  if (code === undefined) return { data, code: undefined, codeProblem: null };
  const ok = (v: unknown) => v === undefined || (typeof v === 'object' && v !== null && Object.values(v).every((f) => typeof f === 'function'));
  const c = code as SubmoduleCode;
  if (typeof code !== 'object' || code === null || !ok(c.parsers) || !ok(c.transforms)) {
    return { data, code: undefined, codeProblem: 'code: must be { parsers?: { name: function }, transforms?: { name: function } }' };
  }
  return { data, code: c, codeProblem: null };
}

/** Every problem of a submodule's content; [] when it is fine. */
export function submoduleProblems(content: unknown): string[] {
  const { data, code, codeProblem } = split(content);
  const shape: string[] = codeProblem ? [codeProblem] : [];
  const seen = new Set<string>();
  for (const e of Value.Errors(SubmoduleSchema, data)) {
    const field = e.path.replace(/^\//, '').replace(/\//g, '.') || '(content)';
    if (seen.has(field)) continue;
    seen.add(field);
    shape.push(`${field}: ${e.message}${e.value === undefined ? '' : ` (got ${JSON.stringify(e.value)?.slice(0, 80)})`}`);
  }
  if (shape.length) return shape;
  return meaningProblems(data as SubmoduleContent, code ?? {});
}

function meaningProblems(c: SubmoduleContent, code: SubmoduleCode): string[] {
  const problems: string[] = [];
  const bases = new Set(Object.keys(c.bases ?? {}));
  const basesText = bases.size ? [...bases].join(', ') : 'none';
  const checkTemplate = (field: string, template: string) => {
    for (const name of placeholders(template)) {
      if (!bases.has(name)) problems.push(`${field}: {${name}} is not one of the bases (${basesText})`);
    }
    const probe = template.replace(/\{[a-z][a-z0-9_]*\}/g, 'https://base.example');
    if (!/^https?:\/\/[^\s]+$/.test(probe) || !URL.canParse(probe)) problems.push(`${field}: must be an http(s) URL or start with a base ({name}/…)`);
  };
  const duplicates = (field: string, names: string[]) => {
    names.forEach((n, i) => { if (names.indexOf(n) !== i) problems.push(`${field}[${i}]: "${n}" is listed twice`); });
  };

  c.pages?.forEach((p, i) => checkTemplate(`pages[${i}].url`, p.url));
  duplicates('pages', (c.pages ?? []).map((p) => p.key));
  if (c.links?.course_management) checkTemplate('links.course_management', c.links.course_management);
  if (c.links?.sign_in) checkTemplate('links.sign_in', c.links.sign_in);

  c.queries?.forEach((q, i) => {
    const at = `queries[${i}]`;
    for (const [name, param] of Object.entries(q.params)) {
      if (param.values && param.codes) problems.push(`${at}.params.${name}: values and codes both list the accepted values; keep one`);
      const keys = Object.keys(param.codes ?? {}).map((k) => k.toLowerCase());
      keys.forEach((k, i) => { if (keys.indexOf(k) !== i) problems.push(`${at}.params.${name}.codes: "${k}" is listed twice (letter case is ignored)`); });
      if (param.join !== undefined && !param.many) problems.push(`${at}.params.${name}.join: only a many parameter is joined`);
      if (param.transform && !code.transforms?.[param.transform]) {
        problems.push(`${at}.params.${name}.transform: "${param.transform}" is not one of its transforms (${Object.keys(code.transforms ?? {}).join(', ') || 'none'})`);
      }
      if (param.pattern) {
        try {
          new RegExp(param.pattern);
        } catch {
          problems.push(`${at}.params.${name}.pattern: not a regular expression`);
          continue;
        }
      }
      if (param.default !== undefined) {
        const why = paramProblem(param, param.default);
        if (why) problems.push(`${at}.params.${name}.default: ${why}`);
      }
    }
    const declared = (field: string, template: string, mustBeGiven: boolean) => {
      for (const name of placeholders(template)) {
        const param = q.params[name];
        if (!param) problems.push(`${at}.${field}: {${name}} is not one of its params (${Object.keys(q.params).join(', ') || 'none'})`);
        else if (mustBeGiven && param.optional && param.default === undefined) problems.push(`${at}.${field}: {${name}} is optional without a default, so the path could not be built`);
      }
    };
    if (q.source.kind === 'http') {
      if (!bases.has(q.source.base)) problems.push(`${at}.source.base: "${q.source.base}" is not one of the bases (${basesText})`);
      declared('source.path', q.source.path, true);
      for (const [name, template] of Object.entries(q.source.query ?? {})) declared(`source.query.${name}`, template, false);
      if (!q.answer) problems.push(`${at}.answer: an http query needs one (html, json, text or parser)`);
      if (q.answer?.kind === 'parser' && !code.parsers?.[q.answer.parser]) {
        problems.push(`${at}.answer.parser: "${q.answer.parser}" is not one of its parsers (${Object.keys(code.parsers ?? {}).join(', ') || 'none'})`);
      }
      for (const header of Object.keys(q.source.headers ?? {})) {
        if (RESERVED_HEADERS.has(header.toLowerCase())) problems.push(`${at}.source.headers.${header}: a submodule may not set this header`);
      }
    } else {
      declared('source.query', q.source.query, true);
      if (q.answer) problems.push(`${at}.answer: a search query answers its results; leave answer out`);
    }
  });
  duplicates('queries', (c.queries ?? []).map((q) => q.name));

  c.feeds?.forEach((f, i) => {
    if (f.kind === 'repo_jobs' && (typeof f.config.repo !== 'string' || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(f.config.repo))) {
      problems.push(`feeds[${i}].config.repo: a repo_jobs preset needs repo "<owner>/<name>"`);
    }
  });
  duplicates('feeds', (c.feeds ?? []).map((f) => f.key));

  const present = { pages: !!c.pages?.length, queries: !!c.queries?.length, feeds: !!c.feeds?.length, links: !!(c.links?.course_management || c.links?.sign_in) };
  for (const [part, readers] of Object.entries(c.readers)) {
    if (readers?.length && !present[part as keyof typeof present]) problems.push(`readers.${part}: the submodule has no ${part}`);
  }
  for (const [part, has] of Object.entries(present)) {
    if (has && !c.readers[part as keyof typeof present]?.length) problems.push(`readers.${part}: name the modules that read its ${part}`);
  }
  return problems;
}
