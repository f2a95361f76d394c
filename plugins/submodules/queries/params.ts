// A live query's parameters as the caller sent them, checked against the query's declaration (spec "Live query
// rules": a bad parameter gives 422 with the accepted values). Defaults fill what was left out.
import { HttpError } from '@quad/core';
import { paramProblem, type ParamDecl, type QueryDecl } from 'quad-submodule-kit';

/** What a parameter accepts, as a 422 body shows it. */
export function accepted(p: ParamDecl) {
  return {
    ...(p.values && { values: [...p.values] }),
    ...(p.pattern && { pattern: p.pattern }),
    ...(p.example !== undefined && { example: p.example }),
    max_length: p.max_length ?? 200,
  };
}

const badParameter = (message: string, parameter: string, accepts: Record<string, unknown>) =>
  new HttpError(422, message, 'bad_parameter', { parameter, accepted: accepts });

/** The query's parameters as text, defaults filled in; 422 `bad_parameter` naming the first bad one. */
export function checkParams(query: QueryDecl, given: Record<string, unknown> = {}): Record<string, string> {
  const names = Object.keys(query.params);
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(query.params, name)) {
      throw badParameter(`${query.name} has no parameter "${name}" (it takes ${names.join(', ') || 'none'})`, name, { parameters: names });
    }
  }
  const out: Record<string, string> = {};
  for (const [name, param] of Object.entries(query.params)) {
    const raw = Object.hasOwn(given, name) ? given[name] : undefined;
    if (raw === undefined || raw === null || raw === '') {
      if (param.default !== undefined) out[name] = param.default;
      else if (!param.optional) throw badParameter(`${query.name} needs the parameter "${name}": ${param.description}`, name, accepted(param));
      continue;
    }
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
      throw badParameter(`Parameter "${name}" must be text`, name, accepted(param));
    }
    const value = String(raw).trim();
    const why = paramProblem(param, value);
    if (why) throw badParameter(`Parameter "${name}" ${why}`, name, accepted(param));
    out[name] = value;
  }
  return out;
}
