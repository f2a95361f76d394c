// The Fastify app: error handling, body limit, security headers, CORS, request ids, request metrics, the
// auth/org/module hooks, OpenAPI, and every module's routes. Data flows one way: auth -> org resolver -> module gate -> handler.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync, type RouteOptions } from 'fastify';
import cors from '@fastify/cors';
import jwt from '@fastify/jwt';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Settings } from '../config/schema.js';
import type { Registry } from '../modules/registry.js';
import type { CoreServices } from '../services.js';
import type { AuthPolicies } from './auth-policies.js';
import type { AuthServices } from '../auth/index.js';
import type { OrgCache } from '../orgs/org-cache.js';
import type { ToolService } from '../tools/tool-service.js';
import type { Metrics } from '../metrics/metrics.js';
import { metricsRoutes } from '../metrics/routes.js';
import { installErrorHandling } from './error-handler.js';
import { mountRoutes } from './mount.js';
import { finishDocument, SECURITY_SCHEMES } from './openapi.js';
import { quadDecorations } from './decorations.js';
import { Sessions } from '../auth/session.js';
import { runSteps } from './maybe-async.js';
import { requestIdOf } from './request-id.js';
import { securityHeaders } from './security-headers.js';
import { ResponseLogController } from '../log.js';
import { validatorCompiler } from './validation.js';
import { lazySerializers } from './serialization.js';
import { webRoutes } from './web.js';
import { closingFlag, shuttingDown } from './shutdown.js';
import './types.js';

export interface HttpAppOptions {
  settings: Settings;
  registry: Registry;
  services: CoreServices;
  orm: MikroORM;
  policies: AuthPolicies;
  auth: AuthServices;
  orgs: OrgCache;
  tools: ToolService;
  /** Where the request counter and latency histogram are recorded; served at GET /metrics. */
  metrics: Metrics;
  version: string;
  logger: FastifyBaseLogger;
}

/**
 * Security headers, in two sets. Every answer (JSON, errors, 404s, assets) carries the API set, the headers that
 * protect a response that is not a page (OWASP's REST set): nothing may frame it or sniff it into HTML
 * (`frame-ancestors 'none'`, X-Frame-Options DENY, `nosniff`), it loads nothing (`default-src 'none'`), other sites
 * cannot embed it (Cross-Origin-Resource-Policy `same-origin`; CORS fetches from the dashboard are not affected)
 * and HSTS. Pages (the docs and the web clients) carry helmet's whole set for documents on top: a CSP of
 * `default-src 'self'` (swagger-ui loads its own files and needs `data:` images and inline styles, which helmet's
 * defaults allow; the web clients' pages set their own), `Referrer-Policy: no-referrer`, Cross-Origin-Opener-Policy
 * and the rest, with `frame-ancestors 'none'` and without `upgrade-insecure-requests`, which would break the docs on
 * http://localhost (TLS is the proxy's job, and HSTS covers it). The document headers on every JSON answer doubled
 * its size and cost a tenth of a small route's throughput.
 */
const API_HEADERS = securityHeaders({
  contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
  crossOriginOpenerPolicy: false, originAgentCluster: false, referrerPolicy: false, xDnsPrefetchControl: false,
  xDownloadOptions: false, xPermittedCrossDomainPolicies: false, xXssProtection: false,
  frameguard: { action: 'deny' },
});
const DOCUMENT_HEADERS = securityHeaders({
  contentSecurityPolicy: { directives: { 'frame-ancestors': ["'none'"], 'upgrade-insecure-requests': null } },
  frameguard: { action: 'deny' },
});

/** Routes that serve pages: helmet's headers for documents on each answer (a handler may still set its own CSP). */
function servingPages(routes: FastifyPluginAsync): FastifyPluginAsync {
  return async (app) => {
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(DOCUMENT_HEADERS);
      done();
    });
    await app.register(routes);
  };
}

/** Each tag with the module whose route used it first. */
function tagModules(routes: readonly RouteOptions[]): Map<string, string> {
  const modules = new Map<string, string>();
  for (const route of routes) {
    const module = (route.config as { module?: string } | undefined)?.module;
    for (const tag of (route.schema as { tags?: string[] } | undefined)?.tags ?? []) if (module && !modules.has(tag)) modules.set(tag, module);
  }
  return modules;
}

export async function buildHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const { settings, registry, services, orm, policies } = options;
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: Math.floor(settings.MAX_REQUEST_MB * 1024 * 1024),
    // A client's x-request-id is used only when short and safe (see request-id.ts).
    genReqId: requestIdOf,
    logController: new ResponseLogController(),
    // Serializers, like validators (below), are compiled when a route first uses them.
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    return503OnClosing: false, // our own 503 while closing: see shutdown.ts
    // Path parameters are checked by each route's schema (a 400 naming the field); the router's own cap (100 by
    // default, a 414 in Fastify's shape) only stops what no schema would take: 100 characters percent-encoded as
    // 4-byte UTF-8 fit.
    routerOptions: { maxParamLength: 1200 },
  }).withTypeProvider<TypeBoxTypeProvider>();
  const shutdown = closingFlag(app);
  app.setValidatorCompiler(validatorCompiler());

  await app.register(quadDecorations, { services, orm });
  installErrorHandling(app, () => services);

  // Answers carry tokens, secrets and members' data: no cache (browser or proxy) keeps any answer, unless its
  // route says otherwise by setting Cache-Control itself.
  // (A callback hook, not an async one: no promise per response.)
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
  // Every answer (404s and refusals too) is counted and timed, by route pattern: see metrics/metrics.ts.
  app.addHook('onResponse', options.metrics.onResponse);
  app.decorate('auth', options.auth);
  app.decorate('orgs', options.orgs);
  app.decorate('tools', options.tools);
  app.decorate('sessions', await Sessions.register(app, options.auth.secretKey));
  await app.register(jwt, {
    secret: { private: options.auth.keys.privateKey, public: options.auth.keys.publicKey },
    sign: { algorithm: 'RS256' },
    // No cache here: the auth policies keep verified tokens in their own cache, keyed by the token (auth/jwt-cache.ts).
    verify: { algorithms: ['RS256'] },
  });
  await app.register(cors, {
    origin: [settings.DASHBOARD_URL, settings.CLIENT_URL].filter((o): o is string => !!o).map((u) => new URL(u).origin),
    credentials: true,
  });
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Quad API', version: options.version,
        description: 'Every route of the core and of the loaded modules. Each operation\'s security names the credentials it takes; '
          + '`x-quad-auth` gives its auth policy and, for machine tokens, the scope the token needs (`{ policy, scope? }`).',
      },
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    // Tags are described by the modules whose routes use them (see openapi.ts).
    transformObject: (document) => finishDocument((document as { openapiObject: Record<string, any> }).openapiObject, registry.modules, tagModules(app.registeredRoutes)) as never,
  });

  // The core's request hook, after CORS (so refusals carry its headers, and the dashboard can read them): the
  // API's security headers, every answer's (errors and 404s too; a route may still override one), the refusal while
  // the server closes, then the route's auth policy. A callback hook whose steps are synchronous when their answers
  // are cached: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(API_HEADERS);
    reply.header('x-request-id', request.id);
    if (shutdown.closing) return done(shuttingDown());
    const policy = request.routeOptions.config?.auth;
    if (!policy) return done(); // the 404 handler
    runSteps(policies.steps(policy), request, done);
  });

  // The docs UI is a third-party route plugin: its routes are public.
  await mountRoutes(app, servingPages(async (docs) => {
    await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { showExtensions: true } });
    docs.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    // A newcomer who opens the bare address lands on the docs.
    docs.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/docs'));
  }), { module: 'docs', registry, policies, gate: false, defaultAuth: 'public' });
  // The dashboard, the store pages and the plugins' page bundles: static files, public.
  await mountRoutes(app, servingPages(webRoutes(registry)), { module: 'web', registry, policies, gate: false, defaultAuth: 'public' });
  // The Prometheus exposition, for the METRICS_TOKEN bearer only (404 while it is unset).
  await mountRoutes(app, metricsRoutes(options.metrics), { module: 'core', registry, policies, gate: false });

  for (const mod of registry.modules) {
    if (mod.routes) await mountRoutes(app, mod.routes, { module: mod.name, registry, policies, gate: !mod.core });
  }
  return app;
}
