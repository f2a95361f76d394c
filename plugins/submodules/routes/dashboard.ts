// Officer routes (spec "Submodules"): the catalog with the org's subscriptions, subscribe and end. The legacy path
// POST /api/dashboard/<org>/knowledge/submodules/<submodule>/sync subscribes too (spec document 1, "Versioning").
import { ErrorBody, OrgParams, OrgRef, Type, type RoutesPlugin } from '@quad/core';
import { CatalogOut, SubmoduleParams, SubscribedOut, UnsubscribedOut } from '../schemas.js';
import { catalogOf } from '../catalog.js';
import { Errors, TAGS, handlers } from '../route-kit.js';

const Params = Type.Object({ org: OrgRef, ...SubmoduleParams.properties });

export default (async (app) => {
  // Loaded here, at boot: a bad submodule package stops the API from starting, naming the package and the field.
  await catalogOf(app.quad);
  const h = handlers(app.quad);
  const auth = 'officer' as const;

  app.get('/api/dashboard/:org/submodules', {
    config: { auth },
    schema: { tags: TAGS, params: OrgParams, summary: 'Every submodule with its record, whether the org subscribes and how many orgs do', response: { 200: CatalogOut, ...Errors } },
  }, (request) => h.list(request));

  app.put('/api/dashboard/:org/submodules/:submodule/subscription', {
    config: { auth },
    schema: {
      tags: TAGS, params: Params,
      summary: 'Subscribe (201), or subscribe again (200: the shared pages are brought up to date); 409 over the limit submodules.subscriptions',
      response: { 200: SubscribedOut, 201: SubscribedOut, ...Errors, 409: ErrorBody },
    },
  }, (request, reply) => h.subscribe(request, reply, request.params.submodule));

  app.delete('/api/dashboard/:org/submodules/:submodule/subscription', {
    config: { auth },
    schema: { tags: TAGS, params: Params, summary: 'End the subscription (feeds made from its presets keep running); 404 when the org has none', response: { 200: UnsubscribedOut, ...Errors } },
  }, (request) => h.unsubscribe(request, request.params.submodule));

  app.post('/api/dashboard/:org/knowledge/submodules/:submodule/sync', {
    config: { auth },
    schema: {
      tags: TAGS, params: Params, summary: 'Legacy name of PUT …/submodules/<submodule>/subscription: subscribes (201) or subscribes again (200)',
      response: { 200: SubscribedOut, 201: SubscribedOut, ...Errors, 409: ErrorBody },
    },
  }, (request, reply) => h.subscribe(request, reply, request.params.submodule));
}) satisfies RoutesPlugin;
