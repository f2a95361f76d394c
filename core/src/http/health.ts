// Health for operators and orchestrators: GET /health (database, job queue, version, degraded features), and the
// probes GET /health/live (the process answers HTTP) and GET /health/ready (it can serve: the database answers and
// the event loop is not overloaded, as @fastify/under-pressure measures it).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import underPressure from '@fastify/under-pressure';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/outage.js';
import { unavailable } from './errors.js';
import { ErrorBody } from './schemas.js';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
  version: Type.String(),
  release: Type.String(),
  database: Type.Object({ ok: Type.Boolean(), error: Type.Optional(Type.String()) }),
  jobs: Type.Object({ ok: Type.Boolean(), waiting: Type.Optional(Type.Integer()), failed: Type.Optional(Type.Integer()) }),
  degraded: Type.Array(Type.Object({ module: Type.String(), extension: Type.String(), without: Type.String() })),
  /** Vector search (pgvector): without it, knowledge search uses text only. */
  vector: Type.Object({ available: Type.Boolean(), reason: Type.Optional(Type.String()) }),
});

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    config: { auth: 'public' },
    schema: { tags: ['core'], summary: 'Service health: database, job queue, version', response: { 200: Health, 503: Health } },
  }, async (request, reply) => {
    const { version, release, degraded, vector } = app.quad;
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
    return reply.code(database.ok ? 200 : 503).send({
      status, version, release, database, jobs, degraded: [...degraded],
      vector: vector.available ? { available: true } : { available: false, reason: vector.reason ?? undefined },
    });
  });

  const Probe = Type.Object({ status: Type.Literal('ok') });
  app.get('/health/live', {
    config: { auth: 'public' },
    schema: { tags: ['core'], summary: 'Liveness: the process answers HTTP (restart it when this fails); checks nothing else', response: { 200: Probe } },
  }, async () => ({ status: 'ok' as const }));

  // A context of its own: under-pressure's 503 gate (fastify-plugin) then covers the readiness route only, so an
  // overloaded process leaves the load balancer's rotation without refusing the requests it is already given.
  await app.register(async (ready) => {
    await ready.register(underPressure, {
      // Averaged over each second (its sampling interval); 0 turns the gate off.
      maxEventLoopDelay: app.quad.settings.READY_MAX_EVENT_LOOP_DELAY_MS,
      pressureHandler: async (request, _reply, type, value) => {
        request.log.warn({ type, value }, 'health: not ready, under pressure');
        throw unavailable('The server is overloaded; try again shortly', 'under_pressure', DATABASE_RETRY_AFTER_SECONDS);
      },
    });
    ready.get('/health/ready', {
      config: { auth: 'public' },
      schema: {
        tags: ['core'],
        summary: 'Readiness: send traffic here only while this answers 200 (the database answers, the event loop keeps up)',
        response: {
          200: Type.Object({
            status: Type.Literal('ok'),
            access: Type.Union([Type.Literal('enforce'), Type.Literal('report')], {
              description: 'ACCESS_ENFORCE: enforce refuses what access checks refuse; report (the default) only logs it and lets it through',
            }),
          }),
          503: ErrorBody,
        },
      },
    }, async (request) => {
      try {
        await request.em.execute('select 1');
      } catch (err) {
        // The cause (which may name the database's address) goes to the logger only: the probe is public.
        request.log.warn({ err }, 'health: not ready, database check failed');
        throw unavailable('The database is unavailable; try again shortly', isDatabaseUnavailable(err) ? 'database_unavailable' : 'database_error', DATABASE_RETRY_AFTER_SECONDS);
      }
      return { status: 'ok' as const, access: app.quad.settings.ACCESS_ENFORCE ? 'enforce' as const : 'report' as const };
    });
  });
};
