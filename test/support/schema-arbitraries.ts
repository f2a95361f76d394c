// fast-check arbitraries from the JSON schemas of the OpenAPI document: valid-ish values for each request part,
// the hostile values a careless or hostile client sends (NUL bytes, lone surrogates, huge and non-finite numbers), and
// the integer fields of a schema with the range each declares.
import fc from 'fast-check';

export type JsonSchema = Record<string, any>;

/** A JSON token written as is: numbers JSON.stringify cannot write (1e309 parses as Infinity, 2^64 loses digits). */
export class RawJson {
  constructor(readonly text: string) {}
  toString() {
    return this.text;
  }
}

/** JSON text of a value that may hold RawJson tokens. */
export function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Percent-encoding that also writes lone surrogates (as their UTF-8-style bytes), which encodeURIComponent refuses. */
export function encodePart(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    out += code >= 0xd800 && code <= 0xdfff
      ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('')
      : encodeURIComponent(ch);
  }
  return out;
}

export const HOSTILE_STRINGS = [
  '\u0000', 'a\u0000b', '\ud800', 'x\udc00y', '\udfff\ud800', '%00', '%', '../', '../../etc/passwd', '..%2F', "' or 1=1 --", '";--',
  '', ' ', '\n', '\u202e', '\uffff', '😀', 'a'.repeat(10_000), 'NaN', 'Infinity', '-Infinity', '1e309', '-1e309',
  '99999999999999999999', '9223372036854775808', '-9223372036854775809', '2147483648', '-1', '0', '-0', '1.5', '0x10', '1e20',
  'true', 'null', '[]', '{}', '__proto__', 'constructor',
];

export const HOSTILE_NUMBERS = ['1e309', '-1e309', '1e400', '99999999999999999999', '9223372036854775808', '2147483648', '-2147483649', '-1', '0', '1.5', '-0', '1e-400']
  .map((n) => new RawJson(n));

const HOSTILE_JSON: unknown[] = [null, true, [], {}, [[[[[['deep']]]]]], new RawJson('{"__proto__":{"admin":true}}'), new RawJson('{"constructor":{"prototype":{"admin":true}}}'), new RawJson(`${'['.repeat(200)}${']'.repeat(200)}`)];

/** Text hostile values, for the path and the query string. */
export const hostileText = () => fc.constantFrom(...HOSTILE_STRINGS);
/** Any hostile JSON value, for bodies. */
export const hostileJson = () => fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.constantFrom(...HOSTILE_NUMBERS), fc.constantFrom(...HOSTILE_JSON));

const small = (max: number | undefined, cap: number) => Math.min(max ?? cap, cap);

function stringArb(s: JsonSchema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  // A pattern bounds the length itself (`^sha256:[a-f0-9]{64}$` is 71 characters): a default cap would filter forever.
  const max = s.maxLength ?? (s.pattern ? Infinity : 40);
  const fits = (v: string) => v.length >= min && v.length <= max;
  if (s.format === 'email') return fc.emailAddress().filter(fits);
  if (s.format === 'date-time') return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === 'uri' || s.format === 'url') return fc.webUrl({ validSchemes: ['https'] }).filter(fits);
  if (s.pattern) return fc.stringMatching(new RegExp(s.pattern), { size: 'xsmall' }).filter(fits);
  return fc.string({ minLength: min, maxLength: small(s.maxLength, Math.max(min, 40)) });
}

function mergeAll(schemas: JsonSchema[]): JsonSchema {
  const out: JsonSchema = { type: 'object', properties: {}, required: [] };
  for (const s of schemas) {
    Object.assign(out.properties, s.properties ?? {});
    out.required.push(...(s.required ?? []));
  }
  return out;
}

/** Values the schema accepts, more or less (a format or pattern we cannot follow yields close strings). */
export function valueArb(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  const inner = (): fc.Arbitrary<unknown> => {
    if (schema.enum) return fc.constantFrom(...schema.enum);
    if ('const' in schema) return fc.constant(schema.const);
    if (schema.anyOf || schema.oneOf) return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: JsonSchema) => valueArb(s, depth + 1)));
    if (schema.allOf) return valueArb(mergeAll(schema.allOf), depth + 1);
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'string': return stringArb(schema);
      case 'integer': return fc.integer({ min: Math.max(schema.minimum ?? -1000, -1e6), max: Math.min(schema.maximum ?? 1000, 1e6) });
      case 'number': return fc.double({ min: Math.max(schema.minimum ?? -1e6, -1e6), max: Math.min(schema.maximum ?? 1e6, 1e6), noNaN: true, noDefaultInfinity: true });
      case 'boolean': return fc.boolean();
      case 'null': return fc.constant(null);
      case 'array': return fc.array(valueArb(schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.max(schema.minItems ?? 0, small(schema.maxItems, 3)) });
      case 'object': return objectArb(schema, depth);
      default: return schema.properties ? objectArb(schema, depth) : fc.jsonValue({ maxDepth: 2 });
    }
  };
  return schema.nullable ? fc.oneof(inner(), fc.constant(null)) : inner();
}

function objectArb(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const props: Record<string, JsonSchema> = schema.properties ?? {};
  const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, valueArb(s, depth + 1)]));
  const known = fc.record(model, { requiredKeys: (schema.required ?? []).filter((k: string) => k in props) });
  const extra = schema.additionalProperties;
  if (!extra || Object.keys(props).length) return known;
  const values = extra === true ? fc.jsonValue({ maxDepth: 2 }) : valueArb(extra, depth + 1);
  return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), values, { minKeys: schema.minProperties ?? 0, maxKeys: 3 });
}

/** Every place in a JSON value a hostile value can go: the root, each element and property, and a new property. */
export function slotsOf(value: unknown, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(path);
  if (Array.isArray(value)) value.forEach((v, i) => slotsOf(v, [...path, i], out));
  else if (value !== null && typeof value === 'object' && !(value instanceof RawJson)) {
    for (const [k, v] of Object.entries(value)) slotsOf(v, [...path, k], out);
    out.push([...path, 'fuzz_extra']);
  }
  return out;
}

/** A copy of `value` with `replacement` at `path` (what is missing on the way is made: an array for a numeric step). */
export function setAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (!path.length) return replacement;
  const [head, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value]
    : value !== null && typeof value === 'object' ? { ...value }
      : typeof head === 'number' ? [] : {};
  copy[head] = setAt(copy[head], rest, replacement);
  return copy;
}

/** The values every integer field is sent besides the random runs (issue 38): past int4 both ways, and 2^53. */
export const INTEGER_EDGES = [2 ** 31, 2 ** 53, -(2 ** 31) - 1];

/** An integer field of a schema: where it sits in a value and the range its schema declares. */
export interface IntegerSlot { path: (string | number)[]; min: number; max: number }

/**
 * Every integer field of a schema, at most `limit` of them: its path in a value (an array's first element, a map's
 * key `fuzz_key`) and its declared range (alternatives of one path merged).
 */
export function integerSlots(schema: JsonSchema | undefined, limit = 24): IntegerSlot[] {
  const slots = new Map<string, IntegerSlot>();
  const visit = (s: JsonSchema | undefined, path: (string | number)[], depth: number) => {
    if (!s || typeof s !== 'object' || depth > 8 || slots.size >= limit) return;
    const type = s.type;
    if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) {
      const min = s.minimum ?? (typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : -Infinity);
      const max = s.maximum ?? (typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - 1 : Infinity);
      const key = JSON.stringify(path);
      const known = slots.get(key);
      slots.set(key, known ? { path, min: Math.min(known.min, min), max: Math.max(known.max, max) } : { path, min, max });
    }
    for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) visit(branch, path, depth + 1);
    for (const [name, child] of Object.entries<JsonSchema>(s.properties ?? {})) visit(child, [...path, name], depth + 1);
    for (const child of Object.values<JsonSchema>(s.patternProperties ?? {})) visit(child, [...path, 'fuzz_key'], depth + 1);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') visit(s.additionalProperties, [...path, 'fuzz_key'], depth + 1);
    if (s.items && !Array.isArray(s.items)) visit(s.items, [...path, 0], depth + 1);
  };
  visit(schema, [], 0);
  return [...slots.values()];
}
