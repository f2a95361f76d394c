// Every route the running app serves: the OpenAPI document (paths, parameter names, query and body schemas)
// joined with Fastify's own route table, so a route the document leaves out (hidden, or added outside a
// module) is called too. Nothing here names a route: a route added later is listed without an edit.
import type { FastifyInstance } from 'fastify';

export type JsonSchema = Record<string, any>;

export interface RouteCase {
  method: string;
  /** Fastify-style path with the document's parameter names, e.g. `/api/storefront/:org/orders/:id`. */
  path: string;
  /** `METHOD path`, as the allow-list names routes. */
  key: string;
  body?: JsonSchema;
  query: { name: string; schema: JsonSchema; required: boolean }[];
  /** False for a route found only in Fastify's table (no schemas: called without a body). */
  documented: boolean;
}

const DOC_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options']);

/**
 * A path with every parameter blanked, to match the document's paths with the table's (regexes, merged names). The
 * table prints a wildcard child without its slash (`/sources*`), the document as a segment (`/sources/*`).
 */
const shape = (path: string) => path.replace(/:[^/]+/g, ':').replace(/\/\*$/, '*');

export function listRoutes(app: FastifyInstance): RouteCase[] {
  const doc = app.swagger() as { paths: Record<string, Record<string, any>> };
  const routes: RouteCase[] = [];
  for (const [docPath, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      if (!DOC_METHODS.has(method)) continue;
      // `{*}` is a wildcard (the rest of the path), Fastify's `*`; other `{name}`s are parameters.
      const path = docPath.replace(/\{\*\}/g, '*').replace(/\{([^}]+)\}/g, ':$1');
      const parameters = (op.parameters ?? []) as { in: string; name: string; schema?: JsonSchema; required?: boolean }[];
      routes.push({
        method: method.toUpperCase(), path, key: `${method.toUpperCase()} ${path}`, documented: true,
        body: op.requestBody?.content?.['application/json']?.schema,
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {}, required: !!p.required })),
      });
    }
  }
  const documented = new Set(routes.map((r) => `${r.method} ${shape(r.path)}`));
  for (const { method, path } of routeTable(app)) {
    // HEAD routes are Fastify's twins of GET routes (same hooks, same handler).
    if (method === 'HEAD' || documented.has(`${method} ${shape(path)}`)) continue;
    const clean = path.replace(/:(\w+)(\([^)]*\))?(\|:\w+)*/g, ':$1');
    routes.push({ method, path: clean, key: `${method} ${clean}`, documented: false, query: [] });
  }
  return routes.sort((a, b) => a.key.localeCompare(b.key));
}

/** Fastify's route table, read from `printRoutes()`: each tree line adds its segment to its parent's path. */
export function routeTable(app: FastifyInstance): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    const path = (depth ? parents[depth - 1]! : '') + m[2]!;
    parents[depth] = path;
    parents.length = depth + 1;
    for (const method of m[3]?.split(', ') ?? []) out.push({ method, path: path.startsWith('/') ? path : `/${path}` });
  }
  return out;
}
