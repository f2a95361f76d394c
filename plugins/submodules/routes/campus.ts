// Legacy aliases (spec document 1, "Versioning": /api/campus/*): the token routes of the campus submodule under
// their old paths, same scopes and answers. A deployment without the campus submodule answers them 404.
import { ErrorBody, type RoutesPlugin } from '@quad/core';
import { QueriesOut, QueryBody, QueryOut, SubscribedOut, UnsubscribedOut } from '../schemas.js';
import { Errors, TAGS, handlers, readPolicy } from '../route-kit.js';

const CAMPUS = 'campus';

export default (async (app) => {
  const h = handlers(app.quad);
  const read = readPolicy(app.quad);
  const manage = 'machine:submodules:manage' as const;
  const Subscribed = { 200: SubscribedOut, 201: SubscribedOut, ...Errors, 409: ErrorBody };

  app.get('/api/campus/queries', {
    config: { auth: read },
    schema: { tags: TAGS, summary: 'Legacy name of GET /api/submodules/campus/queries', response: { 200: QueriesOut, ...Errors } },
  }, () => h.queries(CAMPUS));

  app.post('/api/campus/query', {
    config: { auth: read },
    schema: {
      tags: TAGS, body: QueryBody, summary: 'Legacy name of POST /api/submodules/campus/query',
      response: { 200: QueryOut, ...Errors, 422: ErrorBody, 502: ErrorBody, 503: ErrorBody },
    },
  }, (request) => h.query(request, CAMPUS, request.body));

  app.post('/api/campus/sync', {
    config: { auth: manage },
    schema: { tags: TAGS, summary: 'Legacy name of PUT /api/submodules/campus/subscription', response: Subscribed },
  }, (request, reply) => h.subscribe(request, reply, CAMPUS));

  app.put('/api/campus/subscription', {
    config: { auth: manage },
    schema: { tags: TAGS, summary: 'Legacy name of PUT /api/submodules/campus/subscription', response: Subscribed },
  }, (request, reply) => h.subscribe(request, reply, CAMPUS));

  app.delete('/api/campus/subscription', {
    config: { auth: manage },
    schema: { tags: TAGS, summary: 'Legacy name of DELETE /api/submodules/campus/subscription', response: { 200: UnsubscribedOut, ...Errors } },
  }, (request) => h.unsubscribe(request, CAMPUS));
}) satisfies RoutesPlugin;
