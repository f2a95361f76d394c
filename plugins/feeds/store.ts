// Feed records: list, read, save (create or update, one transaction with the webhook secret and the limit) and
// delete (the feed, its items and runs by cascade, and its webhook secret). Raw SQL names the org in every
// statement. The webhook URL goes in as the org secret alert_webhook_<key> and never comes out: views say only
// whether it is set.
import { conflict, isAllowedWebhookUrl, notFound, badRequest, type CoreServices, type EntityManager } from '@quad/core';
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

const SELECT = `select f.*, (select to_jsonb(r) - 'id' - 'organization_id' - 'feed_id' from alert_runs r
                              where r.feed_id = f.id order by r.started_at desc, r.id desc limit 1) as last_run
                from feeds f`;

export async function listFeeds(em: EntityManager, services: CoreServices, orgId: number): Promise<FeedView[]> {
  const rows = await em.execute<FeedRow[]>(`${SELECT} where f.organization_id = ? order by f.key`, [orgId]);
  const set = await services.secrets.names(em, orgId);
  return rows.map((row) => feedView(row, set.has(webhookSecret(row.key))));
}

export async function findFeed(em: EntityManager, orgId: number, key: string, lock = false): Promise<FeedRow> {
  const [row] = await em.execute<FeedRow[]>(`${SELECT} where f.organization_id = ? and f.key = ?${lock ? ' for update of f' : ''}`, [orgId, key]);
  if (!row) throw notFound(`No feed "${key}"`, 'feed_not_found');
  return row;
}

export async function getFeed(em: EntityManager, services: CoreServices, orgId: number, key: string): Promise<FeedView> {
  const row = await findFeed(em, orgId, key);
  return feedView(row, (await services.secrets.names(em, orgId)).has(webhookSecret(key)));
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
export async function saveFeed(em: EntityManager, services: CoreServices, orgId: number, key: string, body: SaveBody, actor: string | null) {
  const webhook = body.webhook_url === undefined ? undefined : checkWebhook(services, body.webhook_url);
  return em.transactional(async (tx) => {
    const [existing] = await tx.execute<FeedRow[]>('select * from feeds where organization_id = ? and key = ? for update', [orgId, key]);
    if (!existing) {
      if (!body.kind) throw badRequest('body.kind: required for a new feed (repo_jobs or hackathons)', 'validation', { field: 'body.kind' });
      if (webhook === undefined) throw badRequest('body.webhook_url: required for a new feed', 'validation', { field: 'body.webhook_url' });
      const config = checkConfig(body.kind, body.config ?? {});
      await services.limits.reserve(tx, orgId, LIMIT_KEY);
      // Two first PUTs of one key at once: the loser's insert does nothing and it answers as an update would.
      const [made] = await tx.execute<{ id: number }[]>(
        `insert into feeds (organization_id, key, kind, every_hours, enabled, config) values (?, ?, ?, ?, ?, ?::jsonb)
         on conflict (organization_id, key) do nothing returning id`,
        [orgId, key, body.kind, body.every_hours ?? EVERY_HOURS.default, body.enabled ?? true, JSON.stringify(config)]);
      if (!made) throw conflict(`The feed "${key}" was created by another request at the same time; send the PUT again`, 'concurrent_write');
      await services.secrets.set(tx, orgId, webhookSecret(key), webhook, actor);
      return { created: true };
    }
    if (body.kind !== undefined && body.kind !== existing.kind) {
      throw conflict(`A feed's kind cannot change (this one is ${existing.kind}); delete it and create another`, 'kind_fixed', { field: 'body.kind' });
    }
    const config = body.config === undefined ? existing.config : checkConfig(existing.kind, body.config);
    const everyHours = body.every_hours ?? existing.every_hours;
    await tx.execute(
      `update feeds set every_hours = ?, enabled = ?, config = ?::jsonb, updated_at = now(),
         -- a shorter period applies from the last run, not only after the next one
         next_run_at = coalesce(last_run_at + make_interval(hours => ?), next_run_at)
       where id = ?`,
      [everyHours, body.enabled ?? existing.enabled, JSON.stringify(config), everyHours, existing.id]);
    if (webhook !== undefined) await services.secrets.set(tx, orgId, webhookSecret(key), webhook, actor);
    return { created: false };
  });
}

/** Delete the feed, its items and runs (cascade) and its webhook secret, in one transaction. */
export async function deleteFeed(em: EntityManager, services: CoreServices, orgId: number, key: string): Promise<void> {
  await em.transactional(async (tx) => {
    const deleted = await tx.execute('delete from feeds where organization_id = ? and key = ? returning id', [orgId, key]);
    if (!deleted.length) throw notFound(`No feed "${key}"`, 'feed_not_found');
    await services.secrets.delete(tx, orgId, webhookSecret(key));
  });
}

export async function feedHistory(em: EntityManager, orgId: number, key: string) {
  const feed = await findFeed(em, orgId, key);
  const runs = await em.execute<(LastRun & { id: number })[]>(
    `select id, started_at, duration_ms, found, new, posted, error, note, trigger from alert_runs
     where feed_id = ? and organization_id = ? order by started_at desc, id desc limit 50`, [feed.id, orgId]);
  const items = await em.execute<{ item_key: string; status: 'recorded' | 'new' | 'posted'; title: string; url: string; first_seen_at: Date; posted_at: Date | null }[]>(
    `select item_key, status, title, url, first_seen_at, posted_at from feeds_items
     where feed_id = ? and organization_id = ? order by coalesce(posted_at, first_seen_at) desc, id desc limit 50`, [feed.id, orgId]);
  return {
    key,
    runs: runs.map((r) => ({
      id: Number(r.id), at: iso(r.started_at)!, duration_ms: r.duration_ms, found: r.found, new: r.new, posted: r.posted,
      error: r.error, note: r.note, trigger: r.trigger,
    })),
    items: items.map((i) => ({ key: i.item_key, status: i.status, title: i.title, url: i.url, seen_at: iso(i.first_seen_at)!, posted_at: iso(i.posted_at) })),
  };
}
