// Org secrets over the API (officers): list what is set and which integrations are connected, set a value,
// delete it. Values go in and never come out here: no response, log line or audit row carries one (the integration
// routes show back only the fields an integration marks readable). Setting or deleting a field of an integration
// runs its onChange, as the integration routes do.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { badRequest } from '../http/errors.js';
import { ErrorBody, OrgParams, orgParams } from '../http/schemas.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OrgSnapshot } from '../orgs/org-cache.js';
import { integrationRoutes } from './integration-routes.js';
import { integrationChanged, integrationOf } from './integrations.js';
import { MAX_SECRET_LENGTH } from './store.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const SecretParams = orgParams({
  name: Type.String({ minLength: 1, maxLength: 200, description: 'a declared secret, e.g. `github.token`' }),
});

const SecretView = Type.Object({
  name: Type.String(),
  label: Type.String(),
  module: Type.String({ description: 'the module that declares it' }),
  integration: Nullable(Type.String({ description: 'the integration it connects, or null for a module secret' })),
  write_only: Type.Boolean({ description: 'never shown again once set (every value is write-only over the API)' }),
  set: Type.Boolean(),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
});

const IntegrationView = Type.Object({
  key: Type.String(),
  title: Type.String(),
  description: Type.String(),
  module: Type.String(),
  connected: Type.Boolean({ description: 'every required secret is set' }),
  secrets: Type.Array(Type.Object({ name: Type.String(), label: Type.String(), optional: Type.Boolean(), set: Type.Boolean() })),
});

export const secretRoutes: FastifyPluginAsyncTypebox = async (app, options) => {
  const { secrets, registry } = app.quad;
  const auth = 'officer' as const;
  /** A field of an integration changed this way too: its onChange runs as after a save on the integration's route. */
  const changed = async (em: EntityManager, org: OrgSnapshot, name: string) => {
    const integration = secrets.declared(name).integration;
    if (integration) await integrationChanged(app.quad, em, org, integrationOf(registry, integration));
  };

  app.get('/api/dashboard/:org/secrets', {
    config: { auth },
    schema: {
      tags: ['secrets'], summary: 'Which declared secrets the org has set and which integrations are connected (never a value)',
      
      params: OrgParams,
      response: { 200: Type.Object({ secrets: Type.Array(SecretView), integrations: Type.Array(IntegrationView) }), 401: ErrorBody, 403: ErrorBody },
    },
  }, async (request) => {
    const orgId = request.org!.id;
    const [list, integrations] = await Promise.all([secrets.list(request.em, orgId), secrets.integrations(request.em, orgId)]);
    return {
      secrets: list.map((s) => ({
        name: s.name, label: s.label, module: s.module, integration: s.integration, write_only: s.writeOnly,
        set: s.set, updated_at: s.updatedAt?.toISOString() ?? null,
      })),
      integrations: integrations.map(({ remote: _remote, ...i }) => i),
    };
  });

  app.put('/api/dashboard/:org/secrets/:name', {
    config: { auth },
    schema: {
      tags: ['secrets'], summary: 'Set a secret (encrypted at rest; the response never holds the value)', 
      params: SecretParams,
      body: Type.Object({ value: Type.String({ minLength: 1, maxLength: MAX_SECRET_LENGTH, description: 'trimmed before it is stored' }) }, { additionalProperties: false }),
      response: {
        200: Type.Object({ name: Type.String(), set: Type.Literal(true), updated_at: Type.String({ format: 'date-time' }) }),
        400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 503: ErrorBody,
      },
    },
  }, async (request) => {
    const { name } = request.params;
    secrets.declared(name);
    const value = request.body.value.trim();
    if (!value) throw badRequest('body.value: must not be empty or blank', 'validation', { field: 'body.value' });
    const orgId = request.org!.id;
    const { updatedAt } = await request.em.transactional(async (em) => {
      const done = await secrets.set(em, orgId, name, value, request.caller!.actor);
      await request.audit(em, 'secrets.set', { name });
      await changed(em, request.org!, name);
      return done;
    });
    return { name, set: true as const, updated_at: updatedAt.toISOString() };
  });

  app.delete('/api/dashboard/:org/secrets/:name', {
    config: { auth },
    schema: {
      tags: ['secrets'], summary: 'Delete a secret (the integrations it connected become disconnected)', 
      params: SecretParams,
      response: { 200: Type.Object({ name: Type.String(), set: Type.Literal(false) }), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
    },
  }, async (request) => {
    const { name } = request.params;
    secrets.declared(name);
    const orgId = request.org!.id;
    await request.em.transactional(async (em) => {
      if (await secrets.delete(em, orgId, name)) {
        await request.audit(em, 'secrets.delete', { name });
        await changed(em, request.org!, name);
      }
    });
    return { name, set: false as const };
  });

  // Explore → Integrations: the same secrets, per integration (integration-routes.ts).
  await integrationRoutes(app, options);
};
