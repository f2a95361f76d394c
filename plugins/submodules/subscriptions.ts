// Org subscriptions (spec "States and transitions": org subscription). Subscribing reserves one under the limit
// submodules.subscriptions (409 when full; subscribing again reserves nothing), makes or refreshes the submodule's
// shared pages through the knowledge module when it is loaded, and is audited — all in one transaction. Ending
// deletes the row; feeds the org made from presets keep running and shared pages stay for other subscribers.
// One org's statements go through its org-bound handle; counts over every org go through services.acrossOrgs.
import { notFound, sql, type CoreServices, type OrgDb } from '@quad/core';
import type { Submodule } from './catalog.js';
import { sharedPages } from './knowledge-link.js';
import { MODULE } from './settings.js';

export const LIMIT_KEY = 'submodules.subscriptions';

/** The module is on for an org: `organizations.modules` holds `"submodules": true` (off by default). */
const MODULE_ON = sql`(o.modules ->> ${MODULE}::text) = 'true'`;

export interface SubscriptionRow { submodule: string; created_at: Date; refreshed_at: Date }

/** The org's subscriptions, whatever its switch (the routes that read them are gated already). */
export async function subscriptionsOf(db: OrgDb): Promise<Map<string, SubscriptionRow>> {
  const rows = await db.sql<SubscriptionRow>`select submodule, created_at, refreshed_at from submodules_subscriptions where ${db.inOrg()} order by submodule`;
  return new Map(rows.map((r) => [r.submodule, r]));
}

/** Names the org subscribes to; [] when the module is off for it. */
export async function subscribedNames(db: OrgDb): Promise<string[]> {
  const rows = await db.sql<{ submodule: string }>`
    select s.submodule from submodules_subscriptions s join organizations o on o.id = s.organization_id
    where ${db.inOrg('s')} and ${MODULE_ON} order by s.submodule`;
  return rows.map((r) => r.submodule);
}

/** Subscribers per submodule, counting orgs with the module on: read across orgs, kept to counts. */
export async function subscriberCounts(services: CoreServices): Promise<Map<string, number>> {
  const rows = await services.acrossOrgs('submodules.subscriber_counts', (all) => all.sql<{ submodule: string; n: number }>`
    select s.submodule, count(*)::int as n from submodules_subscriptions s join organizations o on o.id = s.organization_id
    where ${MODULE_ON} group by s.submodule`);
  return new Map(rows.map((r) => [r.submodule, r.n]));
}

/** Names of the submodules at least one org with the module on subscribes to: read across orgs, only names leave. */
export async function namesWithSubscribers(services: CoreServices): Promise<string[]> {
  const rows = await services.acrossOrgs('submodules.with_subscribers', (all) => all.sql<{ submodule: string }>`
    select distinct s.submodule from submodules_subscriptions s join organizations o on o.id = s.organization_id
    where ${MODULE_ON} order by s.submodule`);
  return rows.map((r) => r.submodule);
}

export interface Subscribed {
  /** A new subscription (201), or the org subscribed already (200). */
  created: boolean;
  subscribed_at: Date;
  /** What the knowledge module changed in the shared pages; null without it or without pages. */
  shared_pages: { added: number; updated: number; disabled: number } | null;
}

/** Subscribe (or subscribe again, which refreshes the shared pages), in one transaction with its audit entry. */
export async function subscribe(db: OrgDb, services: CoreServices, submodule: Submodule, actor: string): Promise<Subscribed> {
  return db.transaction(async (tx) => {
    // One subscribe of an org at a time: a second one of the same submodule then sees the first's row (200, not a
    // second reservation that a full limit would refuse).
    const lock = `submodules.subscribe:${tx.org}`;
    await tx.run`select pg_advisory_xact_lock(hashtextextended(${lock}::text, 0))`;
    let row = await tx.one<{ created_at: Date }>`
      update submodules_subscriptions set refreshed_at = now() where ${tx.inOrg()} and submodule = ${submodule.name} returning created_at`;
    const created = !row;
    if (created) {
      await services.limits.reserve(tx.em, tx.org, LIMIT_KEY);
      row = await tx.one<{ created_at: Date }>`
        insert into submodules_subscriptions (organization_id, submodule, subscribed_by) values (${tx.org}, ${submodule.name}, ${actor})
        returning created_at`;
    }
    const shared = sharedPages(services);
    const shared_pages = shared && submodule.pages.length > 0 ? await shared.sync(tx.em, submodule.name, submodule.pages) : null;
    await services.audit(tx.em, {
      orgId: tx.org, actor, action: 'submodules.subscribe',
      details: { submodule: submodule.name, again: !created, ...(shared_pages && { shared_pages }) },
    });
    return { created, subscribed_at: new Date(row!.created_at), shared_pages };
  });
}

/** End the org's subscription; 404 when it has none. */
export async function unsubscribe(db: OrgDb, services: CoreServices, submodule: string, actor: string): Promise<void> {
  await db.transaction(async (tx) => {
    const gone = await tx.run`delete from submodules_subscriptions where ${tx.inOrg()} and submodule = ${submodule}`;
    if (!gone) throw notFound(`The org does not subscribe to ${submodule}`, 'not_subscribed');
    await services.audit(tx.em, { orgId: tx.org, actor, action: 'submodules.unsubscribe', details: { submodule } });
  });
}
