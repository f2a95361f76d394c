// GET /health: database, job queue, version and degraded features, for load balancers and operators.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/outage.js';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
  version: Type.String(),
  release: Type.String(),
  database: Type.Object({ ok: Type.Boolean(), error: Type.Optional(Type.String()) }),
  jobs: Type.Object({ ok: Type.Boolean(), waiting: Type.Optional(Type.Integer()), failed: Type.Optional(Type.Integer()) }),
  degraded: Type.Array(Type.Object({ module: Type.String(), extension: Type.String(), without: Type.String() })),
});

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    config: { auth: 'public' },
    schema: { tags: ['core'], summary: 'Service health: database, job queue, version', response: { 200: Health, 503: Health } },
  }, async (request, reply) => {
    const { version, release, degraded } = app.quad;
    const database: { ok: boolean; error?: string } = { ok: true };
    const jobs: { ok: boolean; waiting?: number; failed?: number } = { ok: true };
    try {
      await request.em.execute('select 1');
      const [row] = await request.em.execute(
        `select count(*) filter (where attempts < max_attempts and locked_at is null and run_at <= now())::int as waiting,
                count(*) filter (where attempts >= max_attempts)::int as failed from graphile_worker.jobs`);
      Object.assign(jobs, row);
    } catch (err) {
      // The cause (which may name the database's address) goes to the logger only: /health is public.
      request.log.warn({ err }, 'health: database check failed');
      if (database.ok && !(err as Error).message.includes('graphile_worker')) {
        Object.assign(database, { ok: false, error: isDatabaseUnavailable(err) ? 'database_unavailable' : 'database_error' });
      }
      jobs.ok = false;
    }
    const status = !database.ok ? 'down' : !jobs.ok || degraded.length ? 'degraded' : 'ok';
    if (!database.ok) reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    return reply.code(database.ok ? 200 : 503).send({ status, version, release, database, jobs, degraded: [...degraded] });
  });
};
