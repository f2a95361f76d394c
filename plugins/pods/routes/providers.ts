// GET /api/dashboard/<org>/hosting/providers (spec document 1, "Dashboard routes"; document 2's officer pod routes):
// the pod providers the org can use and whether it has connected each. hostprov is the only one; its adapter lives
// in this module, which the hosting module (hostprov) uses through a service; the route answers while either is on.
import { OrgParams, Type, type RoutesPlugin } from '@quad/core';
import { Errors, officer } from '../schemas.js';
import { PROVIDER } from '../settings.js';

const ProvidersOut = Type.Object({
  providers: Type.Array(Type.Object({
    name: Type.String(),
    title: Type.String(),
    integration: Type.String({ description: 'the integration on Explore → Integrations that connects it' }),
    configured: Type.Boolean({ description: 'whether the org has connected it (its API key is set)' }),
  })),
});

export default (async (app) => {
  const services = app.quad;
  app.get('/api/dashboard/:org/hosting/providers', {
    config: { ...officer, openWith: ['hostprov'] },
    schema: { tags: ['pods'], summary: 'The pod providers and whether the org has connected each', params: OrgParams, response: { 200: ProvidersOut, ...Errors } },
  }, async (request) => {
    const configured = await services.secrets.connected(request.em, request.org!.id, PROVIDER);
    return { providers: [{ name: PROVIDER, title: PROVIDER, integration: PROVIDER, configured }] };
  });
}) satisfies RoutesPlugin;
