// Feeds that subscribed submodules offer (GET /presets, feeds.presets): read from the submodules module's service
// `submodules.subscriptions` when it is loaded (this module never imports it), with `added` when the org already
// has a feed of the preset's key. Without the service there are no presets.
import { defineService, type CoreServices, type EntityManager, type OrgDb } from '@quad/core';
import type { FeedKind } from './feed-config.js';

export interface FeedPreset { submodule: string; key: string; title: string; description: string; kind: FeedKind; config: Record<string, unknown> }
interface SubmoduleSubscriptions { feedPresets(em: EntityManager, orgId: number): Promise<FeedPreset[]> }

const subscriptions = defineService<SubmoduleSubscriptions>({ id: 'submodules.subscriptions', methods: ['feedPresets'] });

export async function presetsOf(services: CoreServices, db: OrgDb) {
  if (!services.registry.services.has(subscriptions.id)) return [];
  const presets = await services.service(subscriptions).feedPresets(db.em, db.org);
  const keys = new Set((await db.sql<{ key: string }>`select key from feeds where ${db.inOrg()}`).map((r) => r.key));
  return presets.map((p) => ({
    module: p.submodule, key: p.key, title: p.title, description: p.description, kind: p.kind, config: p.config, added: keys.has(p.key),
  }));
}
