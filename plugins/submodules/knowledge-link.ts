// What this module uses of the knowledge module, through the core (never an import): the deployment's shared pages
// of a submodule (`knowledge.shared_pages`: sync on subscribe, status for the lists) and the org's own sources
// (`knowledge.org_sources`: the job submodules.index_result). Both are optional — not in the manifest's `consumes` —
// so the module boots and serves its catalog, subscriptions, queries and presets without the knowledge module.
import { defineService, type CoreServices, type EntityManager } from '@quad/core';

export const KNOWLEDGE = 'knowledge';

export interface SharedPageDecl { key: string; url: string; title: string; category: string; fetch_every_hours: number }
export interface SharedPageStatus {
  key: string; url: string; title: string; category: string; enabled: boolean;
  last_attempt_at: string | null; last_success_at: string | null; last_error: string | null; passages: number;
}
export interface SharedPagesStatus { pages: SharedPageStatus[]; passages: number; failing: number; last_crawl_at: string | null }

interface SharedPages {
  sync(em: EntityManager, submodule: string, pages: SharedPageDecl[]): Promise<{ added: number; updated: number; disabled: number }>;
  status(em: EntityManager, submodules: string[]): Promise<Record<string, SharedPagesStatus>>;
}

export interface OrgSourceText { key: string; title: string; url: string; category: string; text: string }
interface OrgSources {
  writeText(em: EntityManager, orgId: number, source: OrgSourceText): Promise<{ changed: boolean }>;
}

const sharedPagesRef = defineService<SharedPages>({ id: 'knowledge.shared_pages', methods: ['sync', 'status'] });
const orgSourcesRef = defineService<OrgSources>({ id: 'knowledge.org_sources', methods: ['writeText'] });

/** The knowledge module's shared pages, or null when no loaded module provides them. */
export function sharedPages(services: CoreServices): SharedPages | null {
  return services.registry.services.has(sharedPagesRef.id) ? services.service(sharedPagesRef) : null;
}

/** The knowledge module's writer of org sources, or null when no loaded module provides it. */
export function orgSources(services: CoreServices): OrgSources | null {
  return services.registry.services.has(orgSourcesRef.id) ? services.service(orgSourcesRef) : null;
}

/** Is the knowledge module loaded and on for an org with these switches? */
export const knowledgeOn = (services: CoreServices, modules: Readonly<Record<string, boolean>>) =>
  services.registry.isEnabled(modules as Record<string, boolean>, KNOWLEDGE);
