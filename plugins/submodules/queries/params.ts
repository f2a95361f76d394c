// A live query's parameters as the caller sent them, checked against the query's declaration (spec "Live query
// rules": a bad parameter gives 422 with the accepted values). Defaults fill what was left out. Then what the site
// takes (`wireParams`): a `codes` value as its code, a `many` list joined, a transform applied ("Fall 2026" → 2267).
import { HttpError } from '@quad/core';
import {
  choicesOf, codeOf, itemsOf, paramProblem, ParamRefused, type ParamDecl, type QueryDecl, type SubmoduleCode,
} from 'quad-submodule-kit';

/** What a parameter accepts, as a 422 body shows it. */
export function accepted(p: ParamDecl) {
  const choices = choicesOf(p);
  return {
    ...(choices && { values: choices }),
    ...(p.many && { many: true }),
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
    out[name] = param.many ? itemsOf(param, value).join(',') : value;
  }
  return out;
}

/**
 * The values the site takes for checked parameters: codes looked up, lists joined, transforms applied (a transform
 * that refuses a value is a 422 naming the parameter, as any bad parameter is).
 */
export function wireParams(query: QueryDecl, params: Record<string, string>, code: SubmoduleCode, now: Date): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    const param = query.params[name]!;
    const items = itemsOf(param, value).map((item) => codeOf(param, item) ?? item);
    let wire = param.many ? items.join(param.join ?? ',') : items[0] ?? value;
    if (param.transform) {
      try {
        wire = code.transforms![param.transform]!(wire, { now });
      } catch (err) {
        if (err instanceof ParamRefused) throw badParameter(`Parameter "${name}" ${err.message}`, name, accepted(param));
        // A transform that fails otherwise is the submodule's fault, not the caller's: the query cannot run (never a 500).
        throw new HttpError(502, `The live query ${query.name} failed: its rule for the parameter "${name}" failed`, 'query_failed');
      }
    }
    out[name] = wire;
  }
  return out;
}
