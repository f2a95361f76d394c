// Feed records: list, read, save (create or update, one transaction with the webhook secret and the limit) and
// delete (the feed, its items and runs by cascade, and its webhook secret), through the org-bound handle (README
// "Org isolation"). The webhook URL goes in as the org secret alert_webhook_<key> and never comes out: views say
// only whether it is set.
import { conflict, isAllowedWebhookUrl, notFound, badRequest, sql, type CoreServices, type OrgDb } from '@quad/core';
import { checkConfig, EVERY_HOURS, type FeedConfig, type FeedKind } from './feed-config.js';

export const LIMIT_KEY = 'feeds.feeds';
export const webhookSecret = (key: string) => `alert_webhook_${key}`;

export interface FeedRow {
  id: number; organization_id: number; key: string; kind: FeedKind; every_hours: number; enabled: boolean; config: FeedConfig;
  next_run_at: Date; first_run_at: Date | null; last_run_at: Date | null; last_error: string | null; posts: number;
  created_at: Date; updated_at: Date;
}
interface LastRun { started_at: Date; duration_ms: number; found: number; new: number; posted: number; error: string | null; note: string | null; trigger: string }

export interface SaveBody { kind?: FeedKind; webhook_url?: string; every_hours?: number; enabled?: boolean; config?: unknown }

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function feedView(row: FeedRow & { last_run?: LastRun | null }, webhookSet: boolean) {
  const run = row.last_run ?? null;
  return {
    key: row.key,
    kind: row.kind,
    every_hours: row.every_hours,
    enabled: row.enabled,
    config: row.config,
    webhook_set: webhookSet,
    schedule: { every_hours: row.every_hours, next_run_at: row.enabled ? iso(row.next_run_at) : null },
    first_run_done: row.first_run_at !== null,
    last_run: run && {
      at: iso(run.started_at)!, duration_ms: run.duration_ms, found: run.found, new: run.new, posted: run.posted,
      error: run.error, note: run.note, trigger: run.trigger,
    },
    last_error: row.last_error,
    posts: row.posts,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}
export type FeedView = ReturnType<typeof feedView>;

const WITH_LAST_RUN = sql`select f.*, (select to_jsonb(r) - 'id' - 'organization_id' - 'feed_id' from alert_runs r
                                       where r.feed_id = f.id order by r.started_at desc, r.id desc limit 1) as last_run
                         from feeds f`;

export async function listFeeds(db: OrgDb, services: CoreServices): Promise<FeedView[]> {
  const rows = await db.sql<FeedRow>`${WITH_LAST_RUN} where ${db.inOrg('f')} order by f.key`;
  const set = await services.secrets.names(db.em, db.org);
  return rows.map((row) => feedView(row, set.has(webhookSecret(row.key))));
}

export async function findFeed(db: OrgDb, key: string, lock = false): Promise<FeedRow> {
  const row = await db.one<FeedRow>`${WITH_LAST_RUN} where ${db.inOrg('f')} and f.key = ${key}${lock ? sql` for update of f` : sql``}`;
  if (!row) throw notFound(`No feed "${key}"`, 'feed_not_found');
  return row;
}

export async function getFeed(db: OrgDb, services: CoreServices, key: string): Promise<FeedView> {
  const row = await findFeed(db, key);
  return feedView(row, (await services.secrets.names(db.em, db.org)).has(webhookSecret(key)));
}

function checkWebhook(services: CoreServices, url: string): string {
  const trimmed = url.trim();
  // The URL is a credential: the error names the field, never the value.
  if (!isAllowedWebhookUrl(trimmed, services.settings.DISCORD_WEBHOOK_URL_BASE)) {
    throw badRequest('body.webhook_url: a Discord webhook URL (https://discord.com/api/webhooks/<id>/<token>)', 'invalid_webhook_url', { field: 'body.webhook_url' });
  }
  return trimmed;
}

/** Create (201) or update (200) a feed in one transaction: the row, its webhook secret and the count limit. Callers read the view after. */
export async function saveFeed(db: OrgDb, services: CoreServices, key: string, body: SaveBody, actor: string | null) {
  const webhook = body.webhook_url === undefined ? undefined : checkWebhook(services, body.webhook_url);
  return db.transaction(async (tx) => {
    const existing = await tx.one<FeedRow>`select * from feeds where ${tx.inOrg()} and key = ${key} for update`;
    if (!existing) {
      if (!body.kind) throw badRequest('body.kind: required for a new feed (repo_jobs or hackathons)', 'validation', { field: 'body.kind' });
      if (webhook === undefined) throw badRequest('body.webhook_url: required for a new feed', 'validation', { field: 'body.webhook_url' });
      const config = checkConfig(body.kind, body.config ?? {});
      await services.limits.reserve(tx.em, tx.org, LIMIT_KEY);
      // Two first PUTs of one key at once: the loser's insert does nothing and it answers as an update would.
      const made = await tx.one<{ id: number }>`
        insert into feeds (organization_id, key, kind, every_hours, enabled, config)
        values (${tx.org}, ${key}, ${body.kind}, ${body.every_hours ?? EVERY_HOURS.default}, ${body.enabled ?? true}, ${JSON.stringify(config)}::jsonb)
        on conflict (organization_id, key) do nothing returning id`;
      if (!made) throw conflict(`The feed "${key}" was created by another request at the same time; send the PUT again`, 'concurrent_write');
      await services.secrets.set(tx.em, tx.org, webhookSecret(key), webhook, actor);
      return { created: true };
    }
    if (body.kind !== undefined && body.kind !== existing.kind) {
      throw conflict(`A feed's kind cannot change (this one is ${existing.kind}); delete it and create another`, 'kind_fixed', { field: 'body.kind' });
    }
    const config = body.config === undefined ? existing.config : checkConfig(existing.kind, body.config);
    const everyHours = body.every_hours ?? existing.every_hours;
    await tx.run`
      update feeds set every_hours = ${everyHours}, enabled = ${body.enabled ?? existing.enabled}, config = ${JSON.stringify(config)}::jsonb, updated_at = now(),
        -- a shorter period applies from the last run, not only after the next one
        next_run_at = coalesce(last_run_at + make_interval(hours => ${everyHours}::int), next_run_at)
      where ${tx.inOrg()} and id = ${existing.id}`;
    if (webhook !== undefined) await services.secrets.set(tx.em, tx.org, webhookSecret(key), webhook, actor);
    return { created: false };
  });
}

/** Delete the feed, its items and runs (cascade) and its webhook secret, in one transaction. */
export async function deleteFeed(db: OrgDb, services: CoreServices, key: string): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx.run`delete from feeds where ${tx.inOrg()} and key = ${key}`;
    if (!deleted) throw notFound(`No feed "${key}"`, 'feed_not_found');
    await services.secrets.delete(tx.em, tx.org, webhookSecret(key));
  });
}

type HistoryItem = { item_key: string; status: 'recorded' | 'new' | 'posted'; title: string; url: string; first_seen_at: Date; posted_at: Date | null };

export async function feedHistory(db: OrgDb, key: string) {
  const feed = await findFeed(db, key);
  const runs = await db.sql<LastRun & { id: number }>`
    select id, started_at, duration_ms, found, new, posted, error, note, trigger from alert_runs
    where ${db.inOrg()} and feed_id = ${feed.id} order by started_at desc, id desc limit 50`;
  const items = await db.sql<HistoryItem>`
    select item_key, status, title, url, first_seen_at, posted_at from feeds_items
    where ${db.inOrg()} and feed_id = ${feed.id} order by coalesce(posted_at, first_seen_at) desc, id desc limit 50`;
  return {
    key,
    runs: runs.map((r) => ({
      id: Number(r.id), at: iso(r.started_at)!, duration_ms: r.duration_ms, found: r.found, new: r.new, posted: r.posted,
      error: r.error, note: r.note, trigger: r.trigger,
    })),
    items: items.map((i) => ({ key: i.item_key, status: i.status, title: i.title, url: i.url, seen_at: iso(i.first_seen_at)!, posted_at: iso(i.posted_at) })),
  };
}
