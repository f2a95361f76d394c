// The Fastify app: error handling, body limit, security headers, CORS, request ids, the auth/org/module hooks,
// OpenAPI, and every module's routes. Data flows one way: auth -> org resolver -> module gate -> handler.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import cookie from '@fastify/cookie';
import secureSession from '@fastify/secure-session';
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
import { parsePolicy } from './auth-policies.js';
import { installErrorHandling } from './error-handler.js';
import { mountRoutes } from './mount.js';
import { quadDecorations } from './decorations.js';
import { sessionPluginOptions } from '../auth/session.js';
import { resolveOrg } from './org-resolver.js';
import { requestIdOf } from './request-id.js';
import { securityHeaders } from './security-headers.js';
import { ResponseLogController } from '../log.js';
import { validatorCompiler } from './validation.js';
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
  version: string;
  logger: FastifyBaseLogger;
}

/**
 * Security headers (helmet) for a JSON API whose only HTML is the docs page (and, later, a dashboard served from
 * its own origin): helmet's defaults — CSP `default-src 'self'` (scripts and styles from this origin; swagger-ui
 * loads its own files and needs `data:` images and inline styles, which helmet's defaults allow), HSTS,
 * `nosniff`, `Referrer-Policy: no-referrer`, Cross-Origin-Opener/Resource-Policy `same-origin` (CORS fetches from
 * the dashboard are not affected; a route serving files for other sites sets its own) — plus: nothing may frame
 * us (`frame-ancestors 'none'`, X-Frame-Options DENY), and no `upgrade-insecure-requests`, which would break the
 * docs on http://localhost (TLS is the proxy's job, and HSTS covers it).
 */
const SECURITY_HEADERS = {
  contentSecurityPolicy: { directives: { 'frame-ancestors': ["'none'"], 'upgrade-insecure-requests': null } },
  frameguard: { action: 'deny' as const },
};

/** OpenAPI security requirements of each auth policy (bearer: `Authorization: Bearer`; session: the member cookie). */
const POLICY_SECURITY: Record<string, Record<string, string[]>[]> = {
  officer: [{ bearer: [] }],
  orgOfficer: [{ bearer: [] }],
  dual: [{ bearer: [] }],
  superadmin: [{ bearer: [] }],
  machine: [{ bearer: [] }],
  officerOrMachine: [{ bearer: [] }],
  member: [{ session: [] }],
  memberOrCli: [{ session: [] }, { bearer: [] }],
};

function documentSecurity(route: RouteOptions) {
  const policy = (route.config as { auth?: string } | undefined)?.auth;
  const security = typeof policy === 'string' ? POLICY_SECURITY[parsePolicy(policy)[0]] : undefined;
  const schema = (route.schema ?? {}) as { security?: unknown };
  if (!security || schema.security !== undefined) return;
  route.schema = { ...schema, security };
}

export async function buildHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const { settings, registry, services, orm, policies } = options;
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: Math.floor(settings.MAX_REQUEST_MB * 1024 * 1024),
    // A client's x-request-id is used only when short and safe (see request-id.ts).
    genReqId: requestIdOf,
    logController: new ResponseLogController(),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler());

  await app.register(quadDecorations, { services, orm });
  installErrorHandling(app, () => services);

  // Set first thing, so every answer has them (errors and 404s too); a route may still override one.
  const headers = securityHeaders(SECURITY_HEADERS);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  // Answers carry tokens, secrets and members' data: no cache (browser or proxy) keeps any answer, unless its
  // route says otherwise by setting Cache-Control itself.
  // (A callback hook, not an async one: no promise per response.)
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
  // The OpenAPI document shows the credential each route's auth policy takes, unless the route declares its own.
  app.addHook('onRoute', (route) => documentSecurity(route));

  app.decorate('auth', options.auth);
  app.decorate('orgs', options.orgs);
  app.decorate('tools', options.tools);
  await app.register(cookie);
  await app.register(secureSession, sessionPluginOptions(options.auth.secretKey));
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
      info: { title: 'Quad API', version: options.version, description: 'Every route of the core and of the loaded modules.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, session: { type: 'apiKey', in: 'cookie', name: 'quad_session' } } },
    },
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    const policy = request.routeOptions.config?.auth;
    if (!policy) return; // the 404 handler
    const [handler, argument] = policies.handler(policy);
    await handler.authenticate(request, argument);
    await resolveOrg(request);
    await handler.authorize?.(request, argument);
  });

  // The docs UI is a third-party route plugin: its routes are public.
  await mountRoutes(app, async (docs) => {
    await docs.register(swaggerUi, { routePrefix: '/docs' });
    docs.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  }, { module: 'docs', registry, policies, gate: false, defaultAuth: 'public' });

  for (const mod of registry.modules) {
    if (mod.routes) await mountRoutes(app, mod.routes, { module: mod.name, registry, policies, gate: !mod.core });
  }
  return app;
}
