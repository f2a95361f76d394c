// The Fastify app: error handling, body limit, CORS, request ids, the auth/org/module hooks, OpenAPI, and
// every module's routes. Data flows one way: auth -> org resolver -> module gate -> handler.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
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
import { installErrorHandling } from './error-handler.js';
import { mountRoutes } from './mount.js';
import { quadDecorations } from './decorations.js';
import { resolveOrg } from './org-resolver.js';
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

export async function buildHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const { settings, registry, services, orm, policies } = options;
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: Math.floor(settings.MAX_REQUEST_MB * 1024 * 1024),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler());

  await app.register(quadDecorations, { services, orm });
  installErrorHandling(app, () => services);

  app.decorate('auth', options.auth);
  app.decorate('orgs', options.orgs);
  app.decorate('tools', options.tools);
  await app.register(cookie, { secret: options.auth.secretKey });
  await app.register(jwt, {
    secret: { private: options.auth.keys.privateKey, public: options.auth.keys.publicKey },
    sign: { algorithm: 'RS256' },
    // Verified tokens are cached (until they expire): an officer's requests skip the RSA check after the first.
    verify: { algorithms: ['RS256'], cache: 10_000 },
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
    request.em = orm.em.fork();
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
