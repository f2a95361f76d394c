// Mounts a module's routes as an encapsulated child context behind the core hooks: every route is
// tagged with its module, must declare an auth policy, and answers 404 for an org that has the module off; the
// integers of its input schemas get int4 bounds where they declare none (integer-bounds.ts).
// A module's routes are a Fastify plugin or a folder of route files, each mounted with @fastify/autoload inside the
// same child (so the same hooks apply). Route plugins are never wrapped in fastify-plugin: that would leak their
// hooks to the whole app.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest, RouteOptions } from 'fastify';
import autoload from '@fastify/autoload';
import { ManifestError, ROUTE_FILE, type Registry } from '../modules/registry.js';
import { addCountLimitHooks, asArray, countLimitProblem } from '../limits/count-limit-route.js';
import type { AuthPolicies } from './auth-policies.js';
import { notFound } from './errors.js';
import { resolveTokenOrg } from './org-resolver.js';
import { documentRoute, operationIdOf, routeTags } from './openapi.js';
import { IntegerBoundError, withIntegerBounds } from './integer-bounds.js';

export interface MountOptions {
  /** Module name, used in boot errors and for the module gate. */
  module: string;
  registry: Registry;
  policies: AuthPolicies;
  /** Gate routes on the org's module switch. Default: true (core modules are always on anyway). */
  gate?: boolean;
  /** Policy for routes that declare none (only for third-party route plugins such as the docs UI). */
  defaultAuth?: 'public';
}

// The core runs from TypeScript under tsx or tap (this file is .ts): then route folders hold .ts files, which
// autoload imports only when told that TypeScript loads (it does not detect tsx's ESM loader).
if (import.meta.url.endsWith('.ts')) process.env.FASTIFY_AUTOLOAD_TYPESCRIPT ??= '1';

/** The operationIds of each app's routes so far: a declared one that repeats another fails boot. */
const operationIds = new WeakMap<FastifyInstance, Map<string, string>>();

/** The route's operationIds, one a method, as the OpenAPI document shows them (see finishDocument). */
function routeOperationIds(route: RouteOptions): string[] {
  if (route.method === 'HEAD') return []; // Fastify's HEAD twin of a GET route: not documented
  const methods = ([] as string[]).concat(route.method);
  const declared = (route.schema as { operationId?: string } | undefined)?.operationId;
  return methods.map((m) => (declared && methods.length === 1 ? declared : operationIdOf(m, route.url)));
}

export async function mountRoutes(app: FastifyInstance, routes: FastifyPluginAsync<any> | URL, options: MountOptions) {
  const scopes = new Set(options.registry.scopes.keys());
  if (!operationIds.has(app)) operationIds.set(app, new Map());
  const ids = operationIds.get(app)!;
  await app.register(async (child) => {
    child.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), module: options.module };
      if (route.config.auth === undefined && options.defaultAuth) route.config.auth = options.defaultAuth;
      const methods = ([] as string[]).concat(route.method).join(',');
      const problem = options.policies.problem(route.config.auth, scopes);
      if (problem) throw new ManifestError(options.module, `routes: ${methods} ${route.url}`, problem);
      const securityProblem = documentRoute(route);
      if (securityProblem) throw new ManifestError(options.module, `routes: ${methods} ${route.url}`, securityProblem);
      routeTags(route, options.module);
      boundInputs(route, options.module, methods);
      for (const id of routeOperationIds(route)) {
        const other = ids.get(id);
        if (other) throw new ManifestError(options.module, `routes: ${methods} ${route.url}`, `operationId "${id}" is already ${other}'s`);
        ids.set(id, `${methods} ${route.url}`);
      }
      if (route.config.countLimit !== undefined) {
        const limitProblem = countLimitProblem(options.registry, options.module, route, route.config.countLimit);
        if (limitProblem) throw new ManifestError(options.module, `routes: ${methods} ${route.url}`, limitProblem);
        addCountLimitHooks(route, app.quad.limits, route.config.countLimit);
      }
      const auth = route.config.auth;
      route.config.tokenOrg = typeof auth === 'string' && auth.startsWith('machine:') && !route.url.split('/').includes(':org');
      // Only these routes pay for it: the token's org, bound and gated before the handler (after the child's hooks).
      if (route.config.tokenOrg) route.onRequest = [...asArray(route.onRequest), bindTokenOrg] as RouteOptions['onRequest'];
    });
    const isOpen = (request: FastifyRequest) => {
      const modules = request.org!.modules;
      return options.registry.isEnabled(modules, options.module)
        || (request.routeOptions.config.openWith ?? []).some((other) => options.registry.isEnabled(modules, other));
    };
    const gate = (request: FastifyRequest) => (options.gate !== false && request.org && !isOpen(request)
      ? notFound(`The ${options.module} module is off for this org`, 'module_off') : undefined);
    const bindTokenOrg = (request: FastifyRequest, _reply: unknown, done: (err?: Error) => void) => {
      // Synchronous when the token's org is cached (the usual case), like the org of a URL.
      const bound = resolveTokenOrg(request);
      if (bound) bound.then(() => done(gate(request)), done);
      else done(gate(request));
    };
    if (options.gate !== false) {
      child.addHook('onRequest', (request, _reply, done) => done(gate(request)));
    }
    if (routes instanceof URL) {
      const dir = fileURLToPath(routes);
      await checkRouteFiles(options.module, dir);
      await child.register(autoload, { dir, dirNameRoutePrefix: false, forceESM: true, scriptPattern: ROUTE_FILE });
    } else {
      await child.register(routes);
    }
  });
}

/** The request parts whose integers get int4 bounds where they declare none (see integer-bounds.ts). */
const INPUT_PARTS = ['params', 'querystring', 'query', 'headers', 'body'] as const;

/** Give the route's input schemas their integer bounds (copies: the declared schemas stay as they are). */
function boundInputs(route: RouteOptions, module: string, methods: string) {
  const schema = route.schema as Record<string, unknown> | undefined;
  if (!schema) return;
  let copy: Record<string, unknown> | null = null;
  for (const part of INPUT_PARTS) {
    if (schema[part] === undefined) continue;
    try {
      const next = withIntegerBounds(schema[part], part === 'query' ? 'querystring' : part);
      if (next !== schema[part]) (copy ??= { ...schema })[part] = next;
    } catch (err) {
      if (err instanceof IntegerBoundError) throw new ManifestError(module, `routes: ${methods} ${route.url}: ${err.field}`, err.message);
      throw err;
    }
  }
  if (copy) route.schema = copy as RouteOptions['schema'];
}

/**
 * Autoload skips a file that exports no plugin without a word: refuse boot instead, naming the file. Every file of
 * the folder (and its subfolders) must default-export a route plugin.
 */
async function checkRouteFiles(module: string, dir: string) {
  // The files autoload mounts: regular files (the test suite's compiled tree links each source beside its JavaScript).
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && ROUTE_FILE.test(e.name));
  for (const e of files) {
    const path = join(e.parentPath, e.name);
    const file = relative(dir, path);
    const loaded = await import(pathToFileURL(path).href);
    if (typeof loaded.default !== 'function') {
      throw new ManifestError(module, `routes: ${file}`, 'a route file must default-export a route plugin (export default (async (app) => { … }) satisfies RoutesPlugin)');
    }
  }
}
