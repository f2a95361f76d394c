// What the core adds to the root Fastify instance and to every request: `app.quad` (the core's services and the
// ORM), `request.em`, `request.org`, `request.caller` and the request-bound helpers. Wrapped in fastify-plugin
// because it must decorate the root: module routes are encapsulated children and see these decorations.
// (Module routes are never wrapped in fastify-plugin: see mount.ts.)
import type { FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { CoreServices } from '../core-services.js';
import { forkFor } from '../db/orm.js';
import { orgDb } from '../db/org-db.js';
import './types.js';

/** Where a request keeps its EntityManager once made. */
const FORK = Symbol('quad.requestEm');
type WithFork = FastifyRequest & { [FORK]: EntityManager | null };

/** The request's EntityManager if a fork was already made (null when nothing used `request.em` yet). */
export function existingFork(request: FastifyRequest): EntityManager | null {
  return (request as WithFork)[FORK];
}

export interface DecorationOptions { services: CoreServices; orm: MikroORM }

export const quadDecorations = fp<DecorationOptions>(async (app, { services, orm }) => {
  app.decorate('quad', Object.assign(Object.create(services), { orm }));
  // Every route as registered (the options objects: each module's mount adds its module to the config afterwards).
  const routes: RouteOptions[] = [];
  app.decorate('registeredRoutes', routes);
  app.addHook('onRoute', (route) => { routes.push(route); });
  // `request.em` forks on first use, bound to the request's org when it is known by then (the org resolver binds a
  // fork made before it): routes that never touch the database pay nothing for it.
  app.decorateRequest(FORK, null);
  app.decorateRequest('em', {
    getter(this: FastifyRequest) {
      const request = this as WithFork;
      return (request[FORK] ??= forkFor(orm, request.org?.id));
    },
  });
  app.decorateRequest('db', {
    getter(this: FastifyRequest) {
      if (!this.org) throw new Error('request.db is for routes with an org (:org, or a machine token\'s)');
      return orgDb(this.em);
    },
  });
  app.decorateRequest('org', null);
  app.decorateRequest('caller', null);
  app.decorateRequest('audit', async function audit(this: FastifyRequest, em: EntityManager, action: string, details?: Record<string, unknown>) {
    await services.audit(em, { orgId: this.org?.id ?? null, actor: this.caller?.actor ?? 'anonymous', action, ...(details && { details }) });
  });
}, { name: 'quad-decorations', fastify: '5.x' });
