// Count limits as a route option: `config: { countLimit: '<module>.<key>' }`. The route runs in one transaction on
// `request.em`, opened after validation: the limit is reserved first (the engine's advisory lock on org and key,
// 409 `limit_reached` when full), then the handler writes, and the transaction commits before the answer is sent
// (a 4xx/5xx answer rolls it back). Concurrent creates of one org wait for each other, so 20 parallel creates
// against a limit of 10 make exactly 10. The handler's own `request.em.transactional(...)` nests as a savepoint.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { LimitsService, ModuleRegistry } from '../core-services.js';

/** Why a route's countLimit is not acceptable, or null. */
export function countLimitProblem(registry: ModuleRegistry, module: string, route: Pick<RouteOptions, 'url'>, key: unknown): string | null {
  if (typeof key !== 'string') return 'config.countLimit must be a limit key';
  const decl = registry.limits.get(key);
  if (!decl || decl.module !== module) return `config.countLimit "${key}" is not a limit this module declares`;
  if (decl.kind !== 'count') return `config.countLimit "${key}" is a ${decl.kind} limit, not a count limit`;
  if (!route.url.includes(':org')) return 'config.countLimit needs an org route (a :org parameter)';
  return null;
}

/** A route option's hooks as a list (Fastify takes one function or several). */
export const asArray = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/** Add the transaction and the reservation to a route that declares `config.countLimit`. */
export function addCountLimitHooks(route: RouteOptions, limits: LimitsService, key: string) {
  const reserve = async (request: FastifyRequest) => {
    const em = request.em;
    await em.begin();
    try {
      await limits.reserve(em, request.org!.id, key);
    } catch (err) {
      await em.rollback();
      throw err;
    }
  };
  const finish = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (!request.em.isInTransaction()) return payload;
    if (reply.statusCode < 400) await request.em.commit();
    else await request.em.rollback();
    return payload;
  };
  // Never leave a connection in a transaction (an answer that skipped onSend).
  const release = async (request: FastifyRequest) => {
    if (request.em.isInTransaction()) await request.em.rollback();
  };
  route.preHandler = [...asArray(route.preHandler), reserve] as RouteOptions['preHandler'];
  route.onSend = [...asArray(route.onSend), finish] as RouteOptions['onSend'];
  route.onResponse = [...asArray(route.onResponse), release] as RouteOptions['onResponse'];
}
