// The org's pod settings (spec: PUT /api/compute/<org>/settings, body pod_image): the default image of its pods.
// GET shows them with the deployment's default (null when PODHOST_POD_IMAGE is not set) and whether the provider key
// is set, for the pods page.
import { OrgParams, type RoutesPlugin } from '@quad/core';
import { orgPodImage, setOrgPodImage } from '../org-settings.js';
import { Errors, SettingsBody, SettingsOut, officer } from '../schemas.js';
import { API_KEY_SECRET, MODULE, type PodsSettings } from '../settings.js';

export default (async (app) => {
  const services = app.quad;
  const answer = async (em: Parameters<typeof orgPodImage>[1], orgId: number) => {
    return {
      pod_image: await orgPodImage(services, em, orgId),
      default_image: services.moduleSettings<PodsSettings>(MODULE).PODHOST_POD_IMAGE ?? null,
      provider_connected: (await services.secrets.names(em, orgId)).has(API_KEY_SECRET),
    };
  };

  app.get('/api/compute/:org/settings', {
    config: officer,
    schema: { tags: ['pods'], summary: 'The org\'s default pod image, the deployment\'s, and whether the provider key is set', params: OrgParams, response: { 200: SettingsOut, ...Errors } },
  }, async (request) => answer(request.em, request.org!.id));

  app.put('/api/compute/:org/settings', {
    config: officer,
    schema: { tags: ['pods'], summary: 'Set the org\'s default pod image (null: the deployment\'s PODHOST_POD_IMAGE)', params: OrgParams, body: SettingsBody, response: { 200: SettingsOut, ...Errors } },
  }, async (request) => {
    const org = request.org!;
    await request.em.transactional(async (tx) => {
      await setOrgPodImage(services, tx, org.id, request.body.pod_image);
      await request.audit(tx, 'podhost.settings', { pod_image: request.body.pod_image });
    });
    return answer(request.em, org.id);
  });
}) satisfies RoutesPlugin;
