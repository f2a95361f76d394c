// Officer routes of the Events page: list, add, change, delete and test outbound event webhooks. A destination
// goes in and never comes out: responses say only whether it is set (and readable). The one SQL statement (the
// name check) goes through the org-bound handle (README "Org isolation"); the rest is the ORM's.
import {
  badRequest, conflict, isAllowedWebhookUrl, ErrorBody, notFound, OrgParams, OrgRef, Type, type CoreServices, type EntityManager, type OrgDb, type RoutesPlugin,
  type Static,
} from '@quad/core';
import { Webhook } from './entities.js';
import { openDestination, sealDestination } from './destination.js';
import { problemKey, recordResult, send } from './deliver.js';
import { testMessage } from './embed.js';

export const LIMIT_KEY = 'event_webhook.webhooks';

const HookParams = Type.Object({ org: OrgRef, id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Destination = Type.String({ minLength: 1, maxLength: 512, description: 'a Discord webhook URL (https://discord.com/api/webhooks/<id>/<token>); write-only' });
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'event kinds to post (see `events` in the list)' });

const WebhookView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  destination_set: Type.Boolean({ description: 'a destination is stored and can be read (the URL itself is never shown)' }),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  last_result: Type.Union([Type.Null(), Type.Object({
    ok: Type.Boolean(),
    at: Type.String({ format: 'date-time' }),
    event: Nullable(Type.String({ description: 'the event kind, or event_webhook.test' })),
    error: Nullable(Type.String()),
  })]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

type Row = { id: number; name: string; destination: string; events: string[]; enabled: boolean; lastAt?: Date | null; lastOk?: boolean | null; lastEvent?: string | null; lastError?: string | null; createdAt: Date; updatedAt: Date };

const view = (h: Row, readable: boolean): Static<typeof WebhookView> => ({
  id: h.id, name: h.name, destination_set: readable, events: [...h.events], enabled: h.enabled,
  last_result: h.lastAt ? { ok: h.lastOk === true, at: h.lastAt.toISOString(), event: h.lastEvent ?? null, error: h.lastError ?? null } : null,
  created_at: h.createdAt.toISOString(), updated_at: h.updatedAt.toISOString(),
});

/** Whether a stored destination can be read now (false when the key was deleted or SECRETS_KEY cannot read it). */
async function readable(em: EntityManager, services: CoreServices, orgId: number, h: Row): Promise<boolean> {
  return openDestination(em, services, orgId, h.id, h.destination).then(() => true, () => false);
}

export const webhookRoutes: RoutesPlugin = async (app) => {
  const services = app.quad;
  const auth = 'officer' as const;
  const tags = ['event_webhook'];

  /** Every event kind a loaded module emits; `module_on` says whether it can happen in this org now. */
  const catalog = (modules: Readonly<Record<string, boolean>>) => {
    const kinds = new Map<string, string>();
    for (const m of services.registry.modules) for (const kind of m.events) if (!kinds.has(kind)) kinds.set(kind, m.name);
    return [...kinds].sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, module]) => ({ kind, module, module_on: services.registry.isEnabled(modules as Record<string, boolean>, module) }));
  };

  const checkName = (name: string) => {
    const trimmed = name.trim();
    if (!trimmed) throw badRequest('name must not be blank', 'validation', { field: 'body.name' });
    return trimmed;
  };
  // The URL is a credential: errors name the field, never the value.
  const checkDestination = (url: string) => {
    const trimmed = url.trim();
    if (!isAllowedWebhookUrl(trimmed, services.settings.DISCORD_WEBHOOK_URL_BASE)) {
      throw badRequest('destination must be a Discord webhook URL (https://discord.com/api/webhooks/<id>/<token>)', 'invalid_destination', { field: 'body.destination' });
    }
    return trimmed;
  };
  const checkEvents = (events: string[]) => {
    const known = new Set(catalog({}).map((k) => k.kind));
    events.forEach((kind, i) => {
      if (!known.has(kind)) throw badRequest(`events[${i}]: no loaded module emits "${kind}"`, 'unknown_event', { field: `body.events.${i}`, event: kind });
    });
    return [...events];
  };
  const nameTaken = async (db: OrgDb, name: string, except?: number) => {
    const found = await db.sql<{ id: number }>`select id from event_webhook_webhooks where ${db.inOrg()} and lower(name) = lower(${name}::text)`;
    return found.some((r) => r.id !== except);
  };
  const isUniqueViolation = (err: unknown) => (err as { name?: string })?.name === 'UniqueConstraintViolationException';
  const taken = (name: string) => conflict(`A webhook named "${name}" exists already`, 'name_taken', { field: 'body.name' });

  const find = async (em: EntityManager, id: number) => {
    const hook = await em.findOne(Webhook, { id });
    if (!hook) throw notFound(`No webhook ${id}`, 'unknown_webhook');
    return hook;
  };

  app.get('/api/dashboard/:org/webhooks', {
    config: { auth },
    schema: {
      tags, params: OrgParams, summary: 'The org\'s event webhooks, the event kinds they can select and the limit',
      response: {
        200: Type.Object({
          webhooks: Type.Array(WebhookView),
          events: Type.Array(Type.Object({ kind: Type.String(), module: Type.String(), module_on: Type.Boolean() })),
          limit: Type.Object({ use: Type.Integer(), value: Type.Union([Type.Integer(), Type.Null()]) }),
        }),
      },
    },
  }, async (request) => {
    const org = request.org!;
    const hooks = await request.em.find(Webhook, {}, { orderBy: { id: 'asc' } });
    const views = await Promise.all(hooks.map(async (h) => view(h, await readable(request.em, services, org.id, h))));
    const { value } = await services.limits.value(request.em, org.id, LIMIT_KEY);
    return { webhooks: views, events: catalog(org.modules), limit: { use: hooks.length, value } };
  });

  app.get('/api/dashboard/:org/webhooks/:id', {
    config: { auth },
    schema: { tags, params: HookParams, summary: 'One webhook', response: { 200: WebhookView, 404: ErrorBody } },
  }, async (request) => {
    const hook = await find(request.em, request.params.id);
    return view(hook, await readable(request.em, services, request.org!.id, hook));
  });

  app.post('/api/dashboard/:org/webhooks', {
    // The core reserves one under the limit (409 limit_reached when full) in the transaction the route runs in.
    config: { auth, countLimit: LIMIT_KEY },
    schema: {
      tags, params: OrgParams,
      summary: 'Add a webhook: name, Discord webhook URL, selected events, enabled (default true). 409 over the limit event_webhook.webhooks',
      body: Type.Object({ name: Name, destination: Destination, events: Events, enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      response: { 201: WebhookView, 400: ErrorBody, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const org = request.org!;
    const name = checkName(request.body.name);
    const url = checkDestination(request.body.destination);
    const events = checkEvents(request.body.events);
    const enabled = request.body.enabled ?? true;
    try {
      const hook = await request.db.transaction(async (tx) => {
        const { em } = tx;
        if (await nameTaken(tx, name)) throw taken(name);
        const created = em.create(Webhook, { organization: org.id, name, destination: '', events, enabled, createdBy: request.caller!.actor });
        await em.flush();
        created.destination = await sealDestination(em, services, org.id, created.id, url);
        await em.flush();
        await request.audit(em, 'event_webhook.create', { id: created.id, name, events, enabled });
        return created;
      });
      return reply.code(201).send(view(hook, true));
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(name);
      throw err;
    }
  });

  app.put('/api/dashboard/:org/webhooks/:id', {
    config: { auth },
    schema: {
      tags, params: HookParams, summary: 'Change a webhook; fields left out stay (a new destination replaces the old one)',
      body: Type.Object({ name: Type.Optional(Name), destination: Type.Optional(Destination), events: Type.Optional(Events), enabled: Type.Optional(Type.Boolean()) },
        { additionalProperties: false, minProperties: 1 }),
      response: { 200: WebhookView, 400: ErrorBody, 404: ErrorBody, 409: ErrorBody },
    },
  }, async (request) => {
    const org = request.org!;
    const b = request.body;
    const name = b.name === undefined ? undefined : checkName(b.name);
    const url = b.destination === undefined ? undefined : checkDestination(b.destination);
    const events = b.events === undefined ? undefined : checkEvents(b.events);
    try {
      const hook = await request.db.transaction(async (tx) => {
        const { em } = tx;
        const found = await find(em, request.params.id);
        if (name !== undefined && (await nameTaken(tx, name, found.id))) throw taken(name);
        if (name !== undefined) found.name = name;
        if (events !== undefined) found.events = events;
        if (b.enabled !== undefined) found.enabled = b.enabled;
        if (url !== undefined) found.destination = await sealDestination(em, services, org.id, found.id, url);
        await em.flush();
        await request.audit(em, 'event_webhook.update', {
          id: found.id, ...(name !== undefined && { name }), ...(events && { events }), ...(b.enabled !== undefined && { enabled: b.enabled }), destination_changed: url !== undefined,
        });
        return found;
      });
      return view(hook, await readable(request.em, services, org.id, hook));
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(name!);
      throw err;
    }
  });

  app.delete('/api/dashboard/:org/webhooks/:id', {
    config: { auth },
    schema: {
      tags, params: HookParams, summary: 'Delete a webhook (queued deliveries to it are dropped)',
      response: { 200: Type.Object({ id: Type.Integer(), deleted: Type.Boolean() }), 404: ErrorBody },
    },
  }, async (request) => {
    const org = request.org!;
    await request.em.transactional(async (em) => {
      const found = await find(em, request.params.id);
      await em.nativeDelete(Webhook, { id: found.id });
      await services.clearProblem(em, org.id, problemKey(found.id));
      await request.audit(em, 'event_webhook.delete', { id: found.id, name: found.name });
    });
    return { id: request.params.id, deleted: true };
  });

  app.post('/api/dashboard/:org/webhooks/:id/test', {
    config: { auth },
    schema: {
      tags, params: HookParams, summary: 'Send a test message now (also while disabled); the result is stored as the last result',
      response: { 200: Type.Object({ ok: Type.Boolean(), error: Type.Union([Type.String(), Type.Null()]), webhook: WebhookView }), 404: ErrorBody },
    },
  }, async (request) => {
    const org = request.org!;
    const hook = await find(request.em, request.params.id);
    const result = await send(request.em, services, org.id, hook, testMessage(hook, org));
    await request.em.transactional(async (em) => {
      await recordResult(em, hook.id, 'event_webhook.test', result);
      if (result.ok) await services.clearProblem(em, org.id, problemKey(hook.id));
      await request.audit(em, 'event_webhook.test', { id: hook.id, ok: result.ok });
    });
    const fresh = await request.em.fork().findOneOrFail(Webhook, { id: hook.id }, { refresh: true });
    return { ok: result.ok, error: result.ok ? null : result.error, webhook: view(fresh, await readable(request.em, services, org.id, fresh)) };
  });
};
