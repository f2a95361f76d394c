// Token routes (spec "Submodules"): the token's org's catalog, subscribe and end (submodules:manage), the live queries
// and one query (knowledge:read; submodules:read when the knowledge module is not loaded, see route-kit.ts). The
// legacy POST /api/submodules/<submodule>/sync subscribes (spec document 1, "Versioning").
import { ErrorBody, type RoutesPlugin } from '@quad/core';
import { CatalogOut, QueriesOut, QueryBody, QueryOut, SubmoduleParams, SubscribedOut, UnsubscribedOut } from '../schemas.js';
import { Errors, TAGS, handlers, readPolicy } from '../route-kit.js';

export default (async (app) => {
  const h = handlers(app.quad);
  const read = readPolicy(app.quad);
  const manage = 'machine:submodules:manage' as const;
  const Subscribed = { 200: SubscribedOut, 201: SubscribedOut, ...Errors, 409: ErrorBody };

  app.get('/api/submodules', {
    config: { auth: read },
    schema: { tags: TAGS, summary: 'Every submodule with its record, as the dashboard lists it', response: { 200: CatalogOut, ...Errors } },
  }, (request) => h.list(request));

  app.put('/api/submodules/:submodule/subscription', {
    config: { auth: manage },
    schema: { tags: TAGS, params: SubmoduleParams, summary: 'Subscribe the token\'s org (201), or again (200); 409 over the limit', response: Subscribed },
  }, (request, reply) => h.subscribe(request, reply, request.params.submodule));

  app.delete('/api/submodules/:submodule/subscription', {
    config: { auth: manage },
    schema: { tags: TAGS, params: SubmoduleParams, summary: 'End the token\'s org\'s subscription; 404 when it has none', response: { 200: UnsubscribedOut, ...Errors } },
  }, (request) => h.unsubscribe(request, request.params.submodule));

  app.post('/api/submodules/:submodule/sync', {
    config: { auth: manage },
    schema: { tags: TAGS, params: SubmoduleParams, summary: 'Legacy name of PUT /api/submodules/<submodule>/subscription', response: Subscribed },
  }, (request, reply) => h.subscribe(request, reply, request.params.submodule));

  app.get('/api/submodules/:submodule/queries', {
    config: { auth: read },
    schema: { tags: TAGS, params: SubmoduleParams, summary: 'The submodule\'s live queries with their parameters, descriptions and accepted values', response: { 200: QueriesOut, ...Errors } },
  }, (request) => h.queries(request.params.submodule));

  app.post('/api/submodules/:submodule/query', {
    config: { auth: read },
    schema: {
      tags: TAGS, params: SubmoduleParams, body: QueryBody,
      summary: 'Run a live query: 404 unknown query, 422 a bad parameter (with the accepted values), 502 its site failed, 503 web without a search service',
      response: { 200: QueryOut, ...Errors, 422: ErrorBody, 502: ErrorBody, 503: ErrorBody },
    },
  }, (request) => h.query(request, request.params.submodule, request.body));
}) satisfies RoutesPlugin;
