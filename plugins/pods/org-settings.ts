// The org's pod settings (spec: PUT /api/compute/<org>/settings with pod_image), in the core's org config store.
import type { CoreServices, EntityManager } from '@quad/core';

/** The org config key: `podhost.settings`. */
export const ORG_CONFIG_KEY = 'podhost.settings';

export interface OrgPodSettings { pod_image: string | null }

export async function orgPodImage(services: CoreServices, em: EntityManager, orgId: number): Promise<string | null> {
  return (await services.orgConfig.get<OrgPodSettings>(em, orgId, ORG_CONFIG_KEY))?.pod_image ?? null;
}

export async function setOrgPodImage(services: CoreServices, em: EntityManager, orgId: number, image: string | null): Promise<void> {
  await services.orgConfig.set(em, orgId, ORG_CONFIG_KEY, { pod_image: image });
}
