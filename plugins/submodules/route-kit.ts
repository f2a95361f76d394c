// What the submodules routes share: the handlers behind the officer, token and legacy paths (each path family only
// picks the caller's policy and where the submodule name comes from), and the scope of the token read routes.
import { ErrorBody, type CoreServices } from '@quad/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catalogOf } from './catalog.js';
import { catalogFor, queryView } from './records.js';
import { findSubmodule, runQuery } from './queries/run.js';
import { subscribe, unsubscribe } from './subscriptions.js';

export const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
export const TAGS = ['submodules'];

/**
 * The scope of the token routes the spec gives knowledge:read (the list, the queries, a query): that scope while the
 * knowledge module is loaded, else submodules:read — a route may only name a scope a loaded module declares.
 */
export function readPolicy(services: CoreServices): `machine:${string}` {
  return services.registry.scopes.has('knowledge:read') ? 'machine:knowledge:read' : 'machine:submodules:read';
}

type Req = FastifyRequest & { org: NonNullable<FastifyRequest['org']> };

export function handlers(services: CoreServices) {
  return {
    list: (request: FastifyRequest) => catalogFor(request.db, services, (request as Req).org),

    /** 201 for a new subscription, 200 again (the shared pages are brought up to date either way). */
    async subscribe(request: FastifyRequest, reply: FastifyReply, name: string) {
      const submodule = findSubmodule(await catalogOf(services), name);
      const done = await subscribe(request.db, services, submodule, request.caller!.actor);
      return reply.code(done.created ? 201 : 200).send({
        submodule: submodule.name, subscribed: true, subscribed_at: done.subscribed_at.toISOString(), shared_pages: done.shared_pages,
      });
    },

    /** Ends a subscription, also to a submodule no longer loaded; 404 when the org has none. */
    async unsubscribe(request: FastifyRequest, name: string) {
      await unsubscribe(request.db, services, name, request.caller!.actor);
      return { submodule: name, subscribed: false as const };
    },

    async queries(name: string) {
      const submodule = findSubmodule(await catalogOf(services), name);
      return { submodule: submodule.name, queries: submodule.queries.map(queryView) };
    },

    async query(request: FastifyRequest, name: string, body: { source: string; params?: Record<string, unknown> }) {
      return runQuery({ em: request.em, services, org: (request as Req).org }, await catalogOf(services), name, body.source, body.params);
    },
  };
}
