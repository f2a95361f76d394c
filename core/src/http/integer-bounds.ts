// Integer bounds given when a schema is registered: every `integer` of a route's params, querystring, headers and
// body, and of a tool's input, that declares no maximum (minimum) gets PostgreSQL's `integer` (int4) bound, so a
// value an int4 column cannot hold is a 400 before any handler runs, never a database error (500), and the OpenAPI
// document and the MCP tool listings show the bound. A field that reaches a bigint column declares its own maximum
// (`BigId`, up to Number.MAX_SAFE_INTEGER); one declaring more than a JavaScript number holds exactly is refused at
// boot. The declared schema is never changed: what changes is copied (a TypeBox schema is often shared between
// routes, modules and response schemas), and the copy of one schema object is made once and reused.
import { INT4_MAX } from './schemas.js';

/** Smallest value of a PostgreSQL `integer`. */
export const INT4_MIN = -2_147_483_648;
const SAFE = Number.MAX_SAFE_INTEGER;

/** A declared bound no JavaScript number holds exactly; `field` is where, e.g. `body.amount`. */
export class IntegerBoundError extends Error {
  constructor(readonly field: string, problem: string) {
    super(problem);
    this.name = 'IntegerBoundError';
  }
}

/** Keywords whose values are data, not subschemas. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example', 'required', 'title', 'description']);
/** Keywords whose value maps names to subschemas, and how a field under them is named. */
const MAP_KEYWORDS: Record<string, (path: string, name: string) => string> = {
  properties: (path, name) => `${path}.${name}`,
  patternProperties: (path) => `${path}.*`,
  dependentSchemas: (path) => path,
  $defs: (_path, name) => `$defs.${name}`,
  definitions: (_path, name) => `definitions.${name}`,
};

const bounded = new WeakMap<object, unknown>();

/**
 * `schema` with every integer bounded: a missing maximum is 2^31 - 1, a missing minimum -2^31. Throws an
 * IntegerBoundError when an integer declares a maximum above Number.MAX_SAFE_INTEGER (or a minimum below its
 * negative), or only a minimum above int4's maximum. `field` names the schema's place in errors (`body`, `input`).
 */
export function withIntegerBounds<T>(schema: T, field: string): T {
  return bound(schema, field) as T;
}

function bound(node: unknown, path: string): unknown {
  if (Array.isArray(node)) {
    const items = node.map((item) => bound(item, path));
    return items.some((item, i) => item !== node[i]) ? items : node;
  }
  if (node === null || typeof node !== 'object') return node;
  const known = bounded.get(node);
  if (known) return known;
  const source = node as Record<string | symbol, unknown>;
  let copy: Record<string | symbol, unknown> | null = null;
  const change = (key: string, value: unknown) => {
    // A shallow copy with the schema's own keys (TypeBox's symbols included): the declared object stays as it is.
    if (!copy) {
      copy = {};
      for (const k of Reflect.ownKeys(source)) copy[k] = source[k];
    }
    copy[key] = value;
  };
  for (const key of Object.keys(source)) {
    // Bounds inside `not` or `if` would change what the schema allows, not narrow it.
    if (DATA_KEYWORDS.has(key) || key === 'not' || key === 'if') continue;
    const value = source[key];
    const named = MAP_KEYWORDS[key];
    let next: unknown;
    if (named && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const map = value as Record<string, unknown>;
      let mapCopy: Record<string, unknown> | null = null;
      for (const name of Object.keys(map)) {
        const child = bound(map[name], named(path, name));
        if (child !== map[name]) (mapCopy ??= { ...map })[name] = child;
      }
      next = mapCopy ?? value;
    } else {
      next = bound(value, key === 'items' || key === 'prefixItems' || key === 'contains' ? `${path}[]` : key === 'additionalProperties' ? `${path}.*` : path);
    }
    if (next !== value) change(key, next);
  }
  if (isInteger(source)) {
    const max = declared(source, 'maximum', 'exclusiveMaximum', path);
    const min = declared(source, 'minimum', 'exclusiveMinimum', path);
    if (max !== undefined && max > SAFE) {
      throw new IntegerBoundError(path, `maximum ${max} is above Number.MAX_SAFE_INTEGER (${SAFE}): a larger integer is not exact in JavaScript; declare at most ${SAFE}`);
    }
    if (min !== undefined && min < -SAFE) {
      throw new IntegerBoundError(path, `minimum ${min} is below -Number.MAX_SAFE_INTEGER (-${SAFE}): a smaller integer is not exact in JavaScript; declare at least -${SAFE}`);
    }
    if (max === undefined && min !== undefined && min > INT4_MAX) {
      throw new IntegerBoundError(path, `minimum ${min} is above int4's maximum and no maximum is declared: declare the maximum its (bigint) column takes`);
    }
    if (max === undefined) change('maximum', INT4_MAX);
    if (min === undefined) change('minimum', INT4_MIN);
  }
  const result = copy ?? node;
  bounded.set(node, result);
  return result;
}

function isInteger(schema: Record<string | symbol, unknown>): boolean {
  const { type } = schema;
  return type === 'integer' || (Array.isArray(type) && type.includes('integer'));
}

/** The bound a schema declares (an exclusive one as the nearest integer inside it), or undefined. */
function declared(schema: Record<string | symbol, unknown>, inclusive: string, exclusive: string, path: string): number | undefined {
  const value = schema[inclusive] ?? schema[exclusive];
  if (value === undefined || typeof value === 'boolean') return undefined; // draft-04's boolean exclusive* go with inclusive
  if (typeof value !== 'number' || Number.isNaN(value)) throw new IntegerBoundError(path, `${inclusive} must be a number`);
  if (schema[inclusive] !== undefined) return value;
  return inclusive === 'maximum' ? Math.ceil(value) - 1 : Math.floor(value) + 1;
}
