// Requests built from a route's (or a tool's) schemas that point at the victim: `:org` is the org under attack,
// every other parameter and every id-like body field is a real row of the victim (the table is found from the
// names around it: `/orders/:id` -> orders, `product_id` -> products, `/notifications/delete {ids}` ->
// notifications), and the rest is a valid value of its schema, so a request gets past validation to the checks.
import type { JsonSchema, RouteCase } from './routes.js';
import type { Snapshot, VictimRefs } from './world.js';

export interface Target {
  /** What `:org` becomes: the victim's prefix or id, or the attacker's own prefix. */
  orgRef: string;
  victimOrgId: number;
  refs: VictimRefs;
  /** Ids of the victim's rows, by table (org-owned tables first). */
  ids: [table: string, ids: number[]][];
  /** Uuids of the victim's rows that have one (ids chosen by their writer, such as an agent's conversation ids). */
  uuids?: [table: string, uuids: string[]][];
  /** Text ids of the victim's rows by column name (`pod_id`: ids an outside service chose, such as a provider's pod id). */
  keys?: [column: string, values: string[]][];
  /** Text names of the victim's rows that routes take as a parameter (a feed's `key`, a `submodule`), by table. */
  names?: [table: string, column: string, values: string[]][];
}

/** Columns holding a row's text name, as path parameters and body fields name them. */
const NAME_COLUMNS = ['key', 'submodule'];
/** Columns holding a row's text name that only a path parameter means (a body's `name` is a new row's own). */
const PATH_NAME_COLUMNS = ['name'];

/** The victim's rows' text names (NAME_COLUMNS and PATH_NAME_COLUMNS), by table, from a snapshot. */
export function rowNames(snapshot: Snapshot): NonNullable<Target['names']> {
  return Object.entries(snapshot).flatMap(([table, rows]) => [...NAME_COLUMNS, ...PATH_NAME_COLUMNS]
    .map((column): [string, string, string[]] => [table, column, rows.map((r) => r[column]).filter((v): v is string => typeof v === 'string')])
    .filter(([, , values]) => values.length > 0));
}

/** The victim's text-valued `*_id` columns, from a snapshot. */
export function rowKeys(snapshot: Snapshot): NonNullable<Target['keys']> {
  const keys = new Map<string, string[]>();
  for (const rows of Object.values(snapshot)) {
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (column.endsWith('_id') && typeof value === 'string') keys.set(column, [...(keys.get(column) ?? []), value]);
      }
    }
  }
  return [...keys];
}

/** The victim's row uuids by table, from a snapshot. */
export function rowUuids(snapshot: Snapshot): NonNullable<Target['uuids']> {
  return Object.entries(snapshot)
    .map(([table, rows]): [string, string[]] => [table, rows.map((r) => r.uuid).filter((u): u is string => typeof u === 'string')])
    .filter(([, uuids]) => uuids.length > 0);
}

/** The victim's row ids by table, from a snapshot. */
export function rowIds(snapshot: Snapshot): Target['ids'] {
  return Object.entries(snapshot)
    .map(([table, rows]): [string, number[]] => [table, rows.map((r) => r.id).filter((id): id is number => typeof id === 'number').sort((a, b) => a - b)])
    .filter(([, ids]) => ids.length > 0);
}

const norm = (s: string) => s.toLowerCase().replace(/[^a-z]/g, '');

/** Ids of the victim's table named by the nearest hint that names one (exact, then suffix, then prefix match). */
function idsFor(hints: string[], target: Target): number[] {
  return tableFor(hints, target.ids) ?? [];
}

function tableFor<T>(hints: string[], tables: [string, T[]][]): T[] | null {
  for (const hint of [...hints].reverse()) {
    const word = norm(hint);
    if (word.length < 3) continue;
    const one = word.replace(/s$/, '');
    const forms = [...new Set([word, one, `${one}s`])];
    const tests: ((table: string) => boolean)[] = [
      (tbl) => forms.includes(tbl),
      (tbl) => forms.some((f) => tbl.endsWith(f)),
      (tbl) => forms.some((f) => tbl.startsWith(f)),
    ];
    for (const test of tests) {
      const found = tables.find(([table]) => test(norm(table)));
      if (found) return found[1];
    }
  }
  return null;
}

/** A value chosen by the field's name: a reference to the victim's people or rows, or undefined. */
function byName(name: string | undefined, hints: string[], target: Target): unknown {
  if (!name) return undefined;
  const n = name.toLowerCase();
  if (/^(org|org_id|orgid|organization|organization_id)$/.test(n)) return target.victimOrgId;
  if (n.includes('email')) return target.refs.email;
  if (/^(chat_user_id|discord_id|discord_user_id)$/.test(n)) return target.refs.chatUserId;
  if (/^(user_id|userid|member_id)$/.test(n)) return target.refs.userId;
  if (/^(event|event_name)$/.test(n)) return target.refs.eventName;
  if (n === 'name' && hints.includes('secrets')) return target.refs.secretName;
  if (n === 'name' && hints.includes('events')) return target.refs.eventName;
  if (n === 'uuid' || n.endsWith('_uuid')) return tableFor(hints, target.uuids ?? [])?.[0];
  if (NAME_COLUMNS.includes(n)) return nameOf(n, hints, target);
  const many = n === 'ids' ? idsFor(hints, target) : n.endsWith('_ids') ? idsFor([...hints, n.slice(0, -4)], target) : null;
  if (many) return many.length ? many : undefined;
  const key = n.endsWith('_id') ? target.keys?.find(([column]) => column === n)?.[1][0] : undefined;
  if (key !== undefined) return key;
  const one = n === 'id' ? idsFor(hints, target) : n.endsWith('_id') ? idsFor([...hints, n.slice(0, -3)], target) : [];
  return one[0];
}

/** The victim's row named by the `column` of the table the hints point at. */
function nameOf(column: string, hints: string[], target: Target): string | undefined {
  return tableFor(hints, (target.names ?? []).filter(([, c]) => c === column).map(([table, , values]): [string, string[]] => [table, values]))?.[0];
}

/** A path parameter's value: a row's text name, the victim's calendar feed file, else as a body field's. */
function pathValue(name: string, hints: string[], target: Target): unknown {
  if (PATH_NAME_COLUMNS.includes(name)) return nameOf(name, hints, target) ?? byName(name, hints, target);
  if (name === 'file' && hints.includes('calendar')) return target.refs.calendarFeedFile;
  return byName(name, hints, target);
}

const FORMATS: Record<string, string> = {
  email: 'probe@example.com', uri: 'https://example.com/probe', url: 'https://example.com/probe',
  'date-time': '2030-01-01T00:00:00.000Z', date: '2030-01-01', uuid: '00000000-0000-4000-8000-000000000000',
};
const STRINGS = ['probe', 'probe-1', 'owner/name', 'https://example.com/probe', '#336699', 'probe:read', 'probe.probe', 'a', '1', 'PROBE'];

function stringValue(schema: JsonSchema): string {
  const candidates = [...(schema.format && FORMATS[schema.format] ? [FORMATS[schema.format]!] : []), ...STRINGS];
  const fits = (s: string) => !schema.pattern || new RegExp(schema.pattern, 'u').test(s);
  let value = candidates.find(fits) ?? 'probe';
  if (schema.minLength && value.length < schema.minLength) value = value.padEnd(schema.minLength, 'x');
  return schema.maxLength ? value.slice(0, schema.maxLength) : value;
}

function numberValue(schema: JsonSchema): number {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -Infinity);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : Infinity);
  return Math.min(Math.max(1, min), max);
}

const isNull = (s: JsonSchema) => s.type === 'null' || (Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null);

type Mode = 'required' | 'all';

export function valueOf(schema: JsonSchema | undefined, name: string | undefined, hints: string[], target: Target, mode: Mode = 'all'): unknown {
  if (!schema) return 'probe';
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null) ?? schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches) return valueOf(branches.find((b) => !isNull(b)) ?? branches[0], name, hints, target, mode);
  if (schema.allOf) return valueOf(Object.assign({}, ...schema.allOf), name, hints, target, mode);
  const type = Array.isArray(schema.type) ? schema.type.find((x: string) => x !== 'null') : schema.type ?? (schema.properties ? 'object' : undefined);
  // A uuid is a uuid of the victim's rows (ids that writers choose, e.g. `conversation_id`), whatever the name says.
  const named = schema.format === 'uuid'
    ? tableFor([...hints, ...(name ? [name.replace(/_id$/, '')] : [])], target.uuids ?? [])?.[0] ?? FORMATS.uuid
    : byName(name, hints, target);
  // A scalar's default is valid and unfiltered (a page size of 50 shows more rows than the minimum of 1).
  if (named === undefined && 'default' in schema && type !== 'object' && type !== 'array') return schema.default;
  switch (type) {
    case 'object': return objectValue(schema, hints, target, mode);
    case 'array': {
      if (Array.isArray(named)) return named.slice(0, schema.maxItems ?? named.length);
      const item = valueOf(schema.items, name?.replace(/s$/, ''), hints, target, mode);
      const count = Math.max(1, schema.minItems ?? 0);
      return Array.from({ length: count }, (_, i) => (i && typeof item === 'string' ? `${item}${i}` : item));
    }
    case 'integer':
    case 'number':
      return typeof named === 'number' ? named : numberValue(schema);
    case 'boolean':
      return true;
    default:
      return named !== undefined && !Array.isArray(named) ? String(named) : stringValue(schema);
  }
}

function objectValue(schema: JsonSchema, hints: string[], target: Target, mode: Mode, extra?: string): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set<string>(schema.required ?? []);
  let keys = mode === 'all' ? Object.keys(properties) : Object.keys(properties).filter((k) => required.has(k) || k === extra);
  // An object that needs more fields than it requires gets its first optional ones.
  for (const k of Object.keys(properties)) if (keys.length < (schema.minProperties ?? 0) && !keys.includes(k)) keys = [...keys, k];
  const out: Record<string, unknown> = Object.fromEntries(keys.map((k) => [k, valueOf(properties[k], k, hints, target, 'all')]));
  if (!Object.keys(properties).length && schema.minProperties && typeof schema.additionalProperties === 'object') {
    out.probe = valueOf(schema.additionalProperties, 'probe', hints, target, 'all');
  }
  return out;
}

/** Bodies to try: the required fields, every field, and the required fields with each optional one alone. */
export function bodyVariants(schema: JsonSchema | undefined, hints: string[], target: Target): unknown[] {
  if (!schema) return [undefined];
  const type = schema.type ?? (schema.properties ? 'object' : undefined);
  if (type !== 'object') return [valueOf(schema, undefined, hints, target)];
  const optional = Object.keys(schema.properties ?? {}).filter((k) => !(schema.required ?? []).includes(k));
  const all = [
    objectValue(schema, hints, target, 'all'),
    objectValue(schema, hints, target, 'required'),
    ...optional.map((k) => objectValue(schema, hints, target, 'required', k)),
  ];
  return [...new Map(all.map((b) => [JSON.stringify(b), b])).values()];
}

const literalSegments = (path: string) => path.split('/').filter((s) => s && !s.startsWith(':') && s !== '*');

/** The URL of a route with every parameter filled in for the target, and its query. */
export function urlFor(route: RouteCase, target: Target, query: 'required' | 'all'): string {
  const segments = route.path.split('/');
  const filled = segments.map((segment, i) => {
    if (segment === '*') return 'probe';
    if (!segment.startsWith(':')) return segment;
    const name = segment.slice(1);
    if (name === 'org') return encodeURIComponent(target.orgRef);
    const value = pathValue(name, literalSegments(segments.slice(0, i).join('/')), target);
    return encodeURIComponent(String(Array.isArray(value) ? value[0] : value ?? 1));
  });
  const params = new URLSearchParams();
  for (const q of route.query) {
    if (query === 'all' || q.required) params.set(q.name, String(valueOf(q.schema, q.name, literalSegments(route.path), target)));
  }
  const search = params.toString();
  return filled.join('/') + (search ? `?${search}` : '');
}

export interface Attempt { method: string; url: string; payload?: unknown }

/**
 * Every request to try on a route for a target: each body with the plain query (lists unfiltered), and the fullest
 * body with every query field too. `one` keeps the first (enough where any answer but a refusal fails).
 */
export function attempts(route: RouteCase, target: Target, one = false): Attempt[] {
  const bodies = bodyVariants(route.body, literalSegments(route.path), target);
  const [plain, full] = [urlFor(route, target, 'required'), urlFor(route, target, 'all')];
  const all: Attempt[] = bodies.map((payload) => ({ method: route.method, url: plain, payload }));
  if (full !== plain) all.push({ method: route.method, url: full, payload: bodies[0] });
  return one ? all.slice(0, 1) : all;
}

/** Arguments to try on a tool, the same way (hints: the parts of its name). */
export function toolArguments(name: string, input: JsonSchema, target: Target): unknown[] {
  return bodyVariants(input, name.split(/[._]/), target);
}
