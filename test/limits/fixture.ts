// Modules made for the limits tests: `quota` declares a count limit, a rate limit, a rate without a limit and
// a shared count, with public routes that reserve or consume in one transaction with their work; `extra` is off
// unless switched on, to check that the report lists only the modules that are on.
import { badRequest, defineOrgEntity, defineModule, HttpError, p, Type, type RoutesPlugin } from '@quad/core';

export const QuotaThing = defineOrgEntity({
  name: 'QuotaThing',
  tableName: 'quota_things',
  properties: {
    id: p.integer().primary().autoincrement(),
    label: p.string(),
  },
});

const Org = Type.Object({ org: Type.String() });

const routes: RoutesPlugin = async (app) => {
  const { limits } = app.quad;

  // Reserve then insert, in one transaction: the engine's lock makes concurrent creates count in turn.
  app.post('/api/quota/:org/things', {
    config: { auth: 'public' },
    schema: {
      params: Org,
      body: Type.Object({ count: Type.Optional(Type.Integer({ minimum: 1 })), fail: Type.Optional(Type.Boolean()), hold_ms: Type.Optional(Type.Integer({ minimum: 0 })) }),
    },
  }, async (request, reply) => {
    const org = request.org!;
    const count = request.body.count ?? 1;
    const made = await request.em.transactional(async (em) => {
      await limits.reserve(em, org.id, 'quota.things', count);
      // Widen the race window: without the lock, parallel requests would all see the old count here.
      if (request.body.hold_ms) await new Promise((r) => setTimeout(r, request.body.hold_ms));
      for (let i = 0; i < count; i++) em.create(QuotaThing, { organization: org.id, label: `thing ${i}` });
      await em.flush();
      if (request.body.fail) throw badRequest('failing after the insert, on purpose', 'on_purpose');
      return count;
    });
    return reply.code(201).send({ made });
  });

  // Consume before the work; a failing request rolls the count back with everything else.
  app.post('/api/quota/:org/calls', {
    config: { auth: 'public' },
    schema: { params: Org, body: Type.Object({ amount: Type.Optional(Type.Integer({ minimum: 0 })), fail: Type.Optional(Type.Boolean()), fallback: Type.Optional(Type.Boolean()) }) },
  }, async (request) => {
    const org = request.org!;
    return request.em.transactional(async (em) => {
      try {
        const use = await limits.consume(em, org.id, 'quota.calls_per_minute', request.body.amount ?? 1);
        if (request.body.fail) throw badRequest('failing after consume, on purpose', 'on_purpose');
        return { use: use.use, fallback: false };
      } catch (err) {
        // Like a search over its embedding limit: fall back and go on, in the same transaction.
        if (request.body.fallback && err instanceof HttpError && err.statusCode === 429) {
          em.create(QuotaThing, { organization: org.id, label: 'fallback' });
          await em.flush();
          return { use: null, fallback: true };
        }
        throw err;
      }
    });
  });
};

export const quotaModule = defineModule({
  name: 'quota',
  title: 'Quota',
  description: 'A module for the limits tests.',
  category: 'Tests',
  limits: [
    { key: 'quota.things', kind: 'count', default: 10, description: 'things an org keeps', count: (em, orgId) => em.count(QuotaThing, { organization: orgId }) },
    { key: 'quota.calls_per_minute', kind: 'rate', window: 'minute', default: 5, description: 'calls a minute', integrations: ['quota_api'] },
    { key: 'quota.pages_per_day', kind: 'rate', window: 'day', default: null, description: 'pages a day, not limited' },
    { key: 'quota.hourly', kind: 'rate', window: 'hour', default: 100, paidBy: 'org', description: 'an hourly rate paid by the org' },
    { key: 'quota.shared_pages', kind: 'count', default: null, paidBy: 'shared', description: 'pages made once for all orgs', count: async () => 0 },
  ],
  tables: { quota_things: 'org' },
  entities: [QuotaThing],
  migrations: new URL('./fixture-migrations/', import.meta.url),
  routes,
});

export const extraModule = defineModule({
  name: 'extra',
  title: 'Extra',
  description: 'A switchable module with a limit, off unless switched on.',
  category: 'Tests',
  limits: [{ key: 'extra.widgets', kind: 'count', default: 3, description: 'widgets', count: async () => 2 }],
});
