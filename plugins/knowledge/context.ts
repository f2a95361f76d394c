// What a knowledge request, tool call or job needs besides its EntityManager: the deployment settings, the org's
// resolved knowledge settings, its embedder (asked lazily: most reads never need it) and whether the database has
// pgvector. One place, so routes and tools build it the same way.
import { orgDbFor, type CoreServices, type EntityManager, type OrgDb, type OrgSnapshot } from '@quad/core';
import { embedderForOrg, type Embedder } from './embeddings.js';
import { ORG_CONFIG_KEY, resolveOrgSettings, type KnowledgeSettings, type OrgKnowledge } from './settings.js';

export const MODULE = 'knowledge';

export const settingsOf = (services: CoreServices) => services.moduleSettings<KnowledgeSettings>(MODULE);

/** The org's stored knowledge settings (only those set; null resets a setting, so it is never stored). */
export async function storedOrgSettings(services: CoreServices, em: EntityManager, orgId: number): Promise<Partial<OrgKnowledge>> {
  return (await services.orgConfig.get<Partial<OrgKnowledge>>(em, orgId, ORG_CONFIG_KEY)) ?? {};
}

export interface KnowledgeContext {
  em: EntityManager;
  /** The org-bound handle of `em`. */
  db: OrgDb;
  org: OrgSnapshot;
  services: CoreServices;
  deployment: KnowledgeSettings;
  settings: OrgKnowledge;
  embedder: () => Promise<Embedder | null>;
  vectors: boolean;
}

/** `em` must be bound to `org` (a request's, a tool call's, a job run's of the org). */
export async function knowledgeContext(services: CoreServices, em: EntityManager, org: OrgSnapshot): Promise<KnowledgeContext> {
  const db = orgDbFor(em, org.id);
  const deployment = settingsOf(services);
  const settings = resolveOrgSettings(deployment, await storedOrgSettings(services, em, org.id));
  let embedder: Promise<Embedder | null> | undefined;
  return {
    em, db, org, services, deployment, settings,
    embedder: () => (embedder ??= embedderForOrg({ settings: deployment, secrets: services.secrets, em, orgId: org.id })),
    vectors: services.extensions.vector === true,
  };
}
