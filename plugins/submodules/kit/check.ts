// The check of a submodule's content: its shape (schema.ts), then what a schema cannot say — unique names, templates
// that name declared bases and parameters, patterns that compile, defaults that their own rules accept. Each problem
// is `<field>: <what is wrong>`; the submodules module prefixes the package that holds it.
import { Value } from '@sinclair/typebox/value';
import { SubmoduleSchema, type ParamDecl, type SubmoduleContent } from './schema.js';

/** The `{name}`s of a template, in order. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([a-z][a-z0-9_]*)\}/g)].map((m) => m[1]!);
}

/** Why `value` is not accepted by the parameter, or null. */
export function paramProblem(param: ParamDecl, value: string): string | null {
  if (value.length > (param.max_length ?? 200)) return `is longer than ${param.max_length ?? 200} characters`;
  if (param.values && !param.values.includes(value)) return `is not one of ${param.values.join(', ')}`;
  if (param.pattern && !new RegExp(`^(?:${param.pattern})$`).test(value)) return `does not match ${param.pattern}`;
  return null;
}

/** Every problem of a submodule's content; [] when it is fine. */
export function submoduleProblems(content: unknown): string[] {
  const shape: string[] = [];
  const seen = new Set<string>();
  for (const e of Value.Errors(SubmoduleSchema, content)) {
    const field = e.path.replace(/^\//, '').replace(/\//g, '.') || '(content)';
    if (seen.has(field)) continue;
    seen.add(field);
    shape.push(`${field}: ${e.message}${e.value === undefined ? '' : ` (got ${JSON.stringify(e.value)?.slice(0, 80)})`}`);
  }
  if (shape.length) return shape;
  return meaningProblems(content as SubmoduleContent);
}

function meaningProblems(c: SubmoduleContent): string[] {
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
      if (!q.answer) problems.push(`${at}.answer: an http query needs one (html, json or text)`);
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
