// Integrations over the API (officers; Explore → Integrations): list them with their fields, save or clear fields
// in one transaction (then the integration's onChange in it), clear them all, and run the connection test. Secret
// fields go in and never come out; readable ones (a base URL, a model) are shown back. Audit rows name fields, never
// values.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorBody, OrgParams, orgParams } from '../http/schemas.js';
import { checkFields, integrationChanged, integrationOf, integrationViews, testIntegration } from './integrations.js';
import { MAX_SECRET_LENGTH } from './store.js';

const KeyParams = orgParams({
  key: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$', description: 'a declared integration, e.g. `embeddings`' }),
});

const FieldView = Type.Object({
  name: Type.String({ description: 'the org secret it is stored as, e.g. `embeddings.url`' }),
  label: Type.String(),
  optional: Type.Boolean({ description: 'does not count for "connected"' }),
  readable: Type.Boolean({ description: 'not a credential: its value is shown back; other fields are write-only' }),
  set: Type.Boolean(),
  value: Type.Optional(Type.String({ description: 'only for a readable field that is set' })),
});

const IntegrationView = Type.Object({
  key: Type.String(),
  title: Type.String(),
  description: Type.String(),
  module: Type.String({ description: 'the module that declares it' }),
  connected: Type.Boolean({ description: 'every required field is set' }),
  remote: Type.Boolean({ description: 'its tools come from the service\'s own MCP server' }),
  testable: Type.Boolean({ description: 'it declares a connection test (POST …/test)' }),
  fields: Type.Array(FieldView),
  used_by: Type.Array(Type.String(), { description: 'the modules whose needs name it' }),
});

const TestAnswer = Type.Object({
  ok: Type.Boolean({ description: 'the service answered as it should' }),
  message: Type.String({ description: 'what worked, or what to fix (never a secret value)' }),
});

export const integrationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const services = app.quad;
  const { registry, secrets } = services;
  const auth = 'officer' as const;
  const tags = ['integrations'];

  app.get('/api/dashboard/:org/integrations', {
    config: { auth },
    schema: {
      tags, summary: 'Every integration the loaded modules declare: its fields (readable values shown, secret ones only set or not), connected, the modules that need it',
      params: OrgParams,
      response: { 200: Type.Object({ integrations: Type.Array(IntegrationView) }), 401: ErrorBody, 403: ErrorBody },
    },
  }, async (request) => ({ integrations: await integrationViews(services, request.em, request.org!.id) }));

  app.put('/api/dashboard/:org/integrations/:key', {
    config: { auth },
    schema: {
      tags, summary: 'Save and clear fields of an integration in one transaction (null clears one); then its onChange (embeddings: knowledge.reembed)',
      params: KeyParams,
      body: Type.Object({
        fields: Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.Union([Type.String({ maxLength: MAX_SECRET_LENGTH }), Type.Null()]), {
          description: '`{ <field name>: value | null }`: a value (trimmed) sets the field, null clears it; at least one',
        }),
      }, { additionalProperties: false }),
      response: { 200: IntegrationView, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 503: ErrorBody },
    },
  }, async (request) => {
    const org = request.org!;
    const integration = integrationOf(registry, request.params.key);
    const { set, clear } = checkFields(integration, request.body.fields);
    const actor = request.caller!.actor;
    await request.em.transactional(async (em) => {
      for (const [name, value] of set) await secrets.set(em, org.id, name, value, actor);
      const cleared: string[] = [];
      for (const name of clear) if (await secrets.delete(em, org.id, name)) cleared.push(name);
      if (!set.length && !cleared.length) return; // only clears of fields that were not set: nothing changed
      await request.audit(em, 'integrations.save', { integration: integration.key, set: set.map(([name]) => name), cleared });
      await integrationChanged(services, em, org, integration);
    });
    return (await integrationViews(services, request.em, org.id, integration.key))[0]!;
  });

  app.delete('/api/dashboard/:org/integrations/:key', {
    config: { auth },
    schema: {
      tags, summary: 'Clear every field of an integration (it is no longer connected); then its onChange',
      params: KeyParams,
      response: { 200: IntegrationView, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
    },
  }, async (request) => {
    const org = request.org!;
    const integration = integrationOf(registry, request.params.key);
    await request.em.transactional(async (em) => {
      const cleared: string[] = [];
      for (const { name } of integration.secrets) if (await secrets.delete(em, org.id, name)) cleared.push(name);
      if (!cleared.length) return; // nothing was set: nothing changed
      await request.audit(em, 'integrations.clear', { integration: integration.key, cleared });
      await integrationChanged(services, em, org, integration);
    });
    return (await integrationViews(services, request.em, org.id, integration.key))[0]!;
  });

  app.post('/api/dashboard/:org/integrations/:key/test', {
    config: { auth },
    schema: {
      tags, summary: 'Test the connection with the org\'s fields: 200 {ok, message} whether or not the service answered as it should; 409 while not connected',
      params: KeyParams,
      response: { 200: TestAnswer, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 503: ErrorBody },
    },
  }, async (request) => {
    const integration = integrationOf(registry, request.params.key);
    return testIntegration(services, request.em, request.org!, integration, {
      requestId: request.id, origin: `${request.method} ${request.routeOptions.url ?? request.url}`,
    });
  });
};
