// Request validation: query strings, params and headers are text, so they are coerced to the schema's types
// ("2" -> 2); JSON bodies are already typed, so they are checked strictly (["x"] is not "x", 42 is not "42").
// On top of each route's schema, every route gets two rules, so that input reaching SQL is input SQL can take:
//  - integers are bounded to ±Number.MAX_SAFE_INTEGER where the schema sets no tighter bound ("99999999999999999999"
//    and "1e309" coerce to 1e20 and Infinity, which ajv's `integer` accepts and PostgreSQL's int8 does not). A
//    route mounted by the core has int4 bounds on every integer already (integer-bounds.ts, when it is registered):
//    this is the backstop for a schema compiled without registering (the CLI's token check);
//  - after ajv passes, one walk of the validated data refuses NUL bytes and lone UTF-16 surrogates in any string or
//    property name (text and jsonb cannot hold them), numbers that are not finite, and nesting deeper than MAX_NESTING.
// Both answer like any validation error: 400 `{ error: "<part>.<field>: …", field, reason: 'validation' }`.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isStorableText } from '../db/storable-text.js';

/** Deepest nesting of arrays and objects a request part may have. */
export const MAX_NESTING = 64;

const SAFE = Number.MAX_SAFE_INTEGER;
// Keywords whose values are data, not subschemas.
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);

/** Why PostgreSQL cannot store this text, or null. */
export function textProblem(text: string): string | null {
  if (isStorableText(text)) return null;
  return text.includes('\u0000') ? 'must not contain a NUL character (\\u0000)' : 'must not contain a lone UTF-16 surrogate';
}

const pointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The first value in `data` that PostgreSQL cannot store, as an ajv-style error (instancePath is a JSON pointer),
 * or null. Iterative, so hostile nesting cannot overflow the stack.
 */
export function unstorableValue(data: unknown): ErrorObject | null {
  const stack: [unknown, string, number][] = [[data, '', 0]];
  while (stack.length) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === 'string') {
      const why = textProblem(value);
      if (why) return storableError(path, why);
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return storableError(path, 'must be a finite number');
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_NESTING) return storableError(path, `must not be nested more than ${MAX_NESTING} levels deep`);
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}/${i}`, depth + 1]);
      } else {
        const keys = Object.keys(value);
        for (let i = keys.length - 1; i >= 0; i--) {
          const why = textProblem(keys[i]);
          if (why) return storableError(path, `property names ${why}`);
          stack.push([(value as Record<string, unknown>)[keys[i]], `${path}/${pointer(keys[i])}`, depth + 1]);
        }
      }
    }
  }
  return null;
}

function storableError(instancePath: string, message: string): ErrorObject {
  return { keyword: 'storable', instancePath, schemaPath: '#', params: {}, message };
}

const bounded = new WeakMap<object, unknown>();

/**
 * A copy of `schema` in which every `integer` has bounds within ±MAX_SAFE_INTEGER (a route's own tighter bounds
 * stay). The route's schema itself is left as declared (it is also the OpenAPI document); copies are shared per
 * schema object, so ajv still compiles a shared schema once.
 */
export function boundIntegers<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(boundIntegers) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const known = bounded.get(schema);
  if (known) return known as T;
  const source = schema as Record<string | symbol, unknown>;
  const copy: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(source)) {
    copy[key] = typeof key === 'string' && DATA_KEYWORDS.has(key) ? source[key] : boundIntegers(source[key]);
  }
  const type = source.type;
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) {
    copy.minimum = typeof source.minimum === 'number' ? Math.max(source.minimum, -SAFE) : -SAFE;
    copy.maximum = typeof source.maximum === 'number' ? Math.min(source.maximum, SAFE) : SAFE;
  }
  bounded.set(schema, copy);
  return copy as T;
}

/**
 * The validator `compile()` makes, compiled on its first call, which also checks data that passes its schema once for
 * what PostgreSQL cannot store.
 */
export function lazyStorableValidator(compile: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | undefined;
  const checked = function (this: unknown, data: unknown, context?: Parameters<ValidateFunction>[1]) {
    validate ??= compile();
    const valid = validate.call(this, data, context);
    if (typeof valid !== 'boolean') return valid; // $async schemas: left to ajv
    if (!valid) {
      checked.errors = validate.errors;
      return false;
    }
    // Coercion may have replaced the root value in its parent (Fastify passes the request as the parent).
    const value = context?.parentData ? (context.parentData as Record<string, unknown>)[context.parentDataProperty] : data;
    const problem = unstorableValue(value);
    checked.errors = problem ? [problem] : null;
    return !problem;
  } as ValidateFunction;
  // Fastify passes the parent (for root coercion) only to functions that look like ajv's: it looks for a schemaEnv.
  Object.assign(checked, { schemaEnv: LAZY });
  return checked;
}

/** What stands for ajv's schemaEnv on a validator not compiled yet. */
const LAZY = Object.freeze({ compiledOnFirstUse: true });

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats.default(ajv);
  return ajv;
}

/**
 * Fastify's validator compiler. A route's validators are compiled on their first use, not when the app starts:
 * compiling every route's validators and serializers was half of an app's start (0.45 s of CPU for the core's routes
 * alone, more with each plugin), for routes a process may never serve (a worker's API, a test's app); a route's first
 * request pays for its own (about a millisecond). The schemas are TypeBox's, and the schema-fuzzing guardrail calls
 * every route, so a schema ajv cannot compile still fails the suite.
 */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const coercing = makeAjv({ coerceTypes: 'array' });
  const strict = makeAjv({ coerceTypes: false });
  return ({ schema, httpPart }) => lazyStorableValidator(() => (httpPart === 'body' ? strict : coercing).compile(boundIntegers(schema as object)));
}
