// One run of one feed (spec "States and transitions", feed rows): read the listing, remember every item (the first
// run records them and posts none unless post_existing), post up to 25 new items 0.5 s apart to the feed's webhook
// (a failed post stays new and goes out next run), then write the run record (the last 50 kept), the feed's
// last_error, and the problem that a failing feed raises and a good run clears. A job list whose every item is new at
// once (its format or links changed) is recorded without posting, so a change upstream never floods a channel.
import { AllHackathonSourcesFailedError } from './hackathons/index.js';
import { describeWebhookFailure, isAllowedWebhookUrl, type CoreServices, type OrgDb } from '@quad/core';
import { readListing, ListingError, type Listing, type ListingItem } from './listing.js';
import { itemMessage } from './messages.js';
import { settingsOf } from './settings.js';
import { webhookSecret, type FeedRow } from './store.js';
import type { RepoJobsConfig } from './feed-config.js';

export const POST_BATCH = 25;
export const POST_GAP_MS = 500;
export const RUNS_KEPT = 50;
/** Items no longer listed are forgotten after this; the table follows the listing, not the feed's age. */
const FORGET_AFTER_DAYS = 30;

export const problemKey = (feedId: number) => `feeds.run_failed:${feedId}`;

export interface RunOptions {
  trigger: 'schedule' | 'manual';
  /** On a first run: post the current items instead of only recording them. */
  postExisting?: boolean;
  /** The run's time (job payloads of tests set it). Default: now. */
  now?: Date;
  /** Waits between posts; tests pass a clock that records instead. Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
}

export interface RunOutcome { found: number; new: number; posted: number; error: string | null; note: string | null }

/** The run's org-bound handle (the job's `db`) and the core's services. */
export interface RunContext { db: OrgDb; services: CoreServices }

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A later run of a job list in which every item is new, more than a batch of them, while the feed knew items before:
 * the list's format or its links most likely changed, so every posting would look new. The items are recorded
 * without posting and the run fails with the reason (the next run, knowing them, is back to normal).
 */
async function allChanged(db: OrgDb, feed: FeedRow, items: ListingItem[]): Promise<boolean> {
  if (feed.kind !== 'repo_jobs' || items.length <= POST_BATCH) return false;
  // Two probes of the (feed_id, item_key) index: the cost does not grow with the feed's history.
  const [known] = await db.sql<{ before: boolean; listed: boolean }>`
    select exists (select 1 from feeds_items where ${db.inOrg()} and feed_id = ${feed.id}) as before,
      exists (select 1 from feeds_items where ${db.inOrg()} and feed_id = ${feed.id} and item_key = any(${items.map((item) => item.key)}::text[])) as listed`;
  return known!.before && !known!.listed;
}

/** Remember the listing's items (one statement); answers how many were new. Seen items get a fresh last_seen_at. */
async function recordItems(db: OrgDb, feed: FeedRow, items: ListingItem[], status: 'new' | 'recorded'): Promise<number> {
  if (items.length === 0) return 0;
  const rows = await db.sql<{ inserted: boolean }>`
    insert into feeds_items (organization_id, feed_id, item_key, status, title, url, data)
    select ${db.org}::int, ${feed.id}::int, x.key, ${status}::text, x.title, x.url, x.data
    from jsonb_to_recordset(${JSON.stringify(items)}::jsonb) as x(key text, title text, url text, data jsonb)
    on conflict (feed_id, item_key) do update set last_seen_at = now()
    returning (xmax = 0) as inserted`;
  return rows.filter((r) => r.inserted).length;
}

/** Post the oldest new items, one message each, POST_GAP_MS apart; stops at the first failure (its reason returned). */
async function postNew(ctx: RunContext, feed: FeedRow, sleep: (ms: number) => Promise<void>): Promise<{ posted: number; error: string | null }> {
  const { db, services } = ctx;
  const queue = await db.sql<{ id: number; item_key: string; title: string; url: string; data: ListingItem['data'] }>`
    select id, item_key, title, url, data from feeds_items where ${db.inOrg()} and feed_id = ${feed.id} and status = 'new'
    order by first_seen_at, id limit ${POST_BATCH}`;
  if (queue.length === 0) return { posted: 0, error: null };
  const url = await services.secrets.get(db.em, db.org, webhookSecret(feed.key)).catch(() => null);
  if (!url) return { posted: 0, error: 'the webhook URL is not set or cannot be read: save the feed with webhook_url again' };
  if (!isAllowedWebhookUrl(url, services.settings.DISCORD_WEBHOOK_URL_BASE)) {
    return { posted: 0, error: 'the webhook URL is no longer an allowed Discord webhook URL (DISCORD_WEBHOOK_URL_BASE changed): save it again' };
  }
  const label = feed.kind === 'repo_jobs' ? (feed.config as RepoJobsConfig).label : '';
  let posted = 0;
  for (const item of queue) {
    if (posted > 0) await sleep(POST_GAP_MS);
    try {
      await services.discord.executeWebhook(url, itemMessage({ key: item.item_key, title: item.title, url: item.url, data: item.data }, label));
    } catch (err) {
      return { posted, error: `posting failed after ${posted} of ${queue.length}: ${describeWebhookFailure(err, url)}` };
    }
    // Marked one by one (autocommit): a crash later in the batch must not post this item again.
    await db.run`
      with posted as (update feeds_items set status = 'posted', posted_at = now() where ${db.inOrg()} and id = ${item.id} returning feed_id)
      update feeds set posts = posts + 1 where ${db.inOrg()} and id = (select feed_id from posted)`;
    posted++;
  }
  return { posted, error: null };
}

/** Write the run record and the feed's state; keep the last RUNS_KEPT runs; raise or clear the problem. */
async function finish(ctx: RunContext, feed: FeedRow, startedAt: Date, options: RunOptions, outcome: RunOutcome): Promise<void> {
  const { db, services } = ctx;
  await db.transaction(async (tx) => {
    await tx.run`
      insert into alert_runs (organization_id, feed_id, started_at, duration_ms, found, new, posted, error, note, trigger)
      values (${tx.org}, ${feed.id}, ${startedAt}, ${Date.now() - startedAt.getTime()}, ${outcome.found}, ${outcome.new}, ${outcome.posted},
              ${outcome.error}, ${outcome.note}, ${options.trigger})`;
    await tx.run`
      delete from alert_runs where ${tx.inOrg()} and feed_id = ${feed.id} and id not in (
        select id from alert_runs where feed_id = ${feed.id} order by started_at desc, id desc limit ${RUNS_KEPT})`;
    await tx.run`
      delete from feeds_items where ${tx.inOrg()} and feed_id = ${feed.id} and status <> 'new'
        and last_seen_at < now() - make_interval(days => ${FORGET_AFTER_DAYS}::int)`;
    // every_hours count from the last run, whoever started it (a Run now pushes the schedule's next run back).
    await tx.run`
      update feeds set last_run_at = ${startedAt}, last_error = ${outcome.error},
        next_run_at = greatest(next_run_at, ${startedAt}::timestamptz + make_interval(hours => every_hours))
      where ${tx.inOrg()} and id = ${feed.id}`;
    if (outcome.error) {
      await services.raiseProblem(tx.em, {
        orgId: tx.org, key: problemKey(feed.id), title: `Feed "${feed.key}" failed`, message: outcome.error,
        data: { feed: feed.key, kind: feed.kind },
      });
    } else {
      await services.clearProblem(tx.em, tx.org, problemKey(feed.id));
    }
  });
}

/** Run the feed now. Null when it no longer exists. A listing or a post that fails is the run's error, not a throw. */
export async function runFeed(ctx: RunContext, key: string, options: RunOptions): Promise<RunOutcome | null> {
  const { db, services } = ctx;
  const feed = await db.one<FeedRow>`select * from feeds where ${db.inOrg()} and key = ${key}`;
  if (!feed) return null;
  const startedAt = new Date();
  const now = options.now ?? startedAt;
  const outcome: RunOutcome = { found: 0, new: 0, posted: 0, error: null, note: null };
  let listing: Listing | null = null;
  try {
    listing = await readListing(settingsOf(services), feed.kind, feed.config, now);
  } catch (err) {
    // A listing that cannot be read is the run's error; anything else is a fault of ours and fails the job.
    if (!(err instanceof ListingError || err instanceof AllHackathonSourcesFailedError)) throw err;
    outcome.error = err.message;
  }
  if (listing) {
    outcome.found = listing.items.length;
    outcome.note = listing.note;
    const firstRun = feed.first_run_at === null;
    const recorded = await db.transaction(async (tx) => {
      const changed = !firstRun && await allChanged(tx, feed, listing.items);
      const added = await recordItems(tx, feed, listing.items, (firstRun && !options.postExisting) || changed ? 'recorded' : 'new');
      if (firstRun) await tx.run`update feeds set first_run_at = ${startedAt} where ${tx.inOrg()} and id = ${feed.id}`;
      return { added, changed };
    });
    outcome.new = recorded.added;
    if (recorded.changed) {
      const config = feed.config as RepoJobsConfig;
      outcome.error = `all ${outcome.new} items of ${config.path} of ${config.repo} are new at once: the list's format or its links `
        + 'probably changed, so they were recorded without posting (the next run posts only what is new after them)';
      await finish(ctx, feed, startedAt, options, outcome);
      return outcome;
    }
    const posting = await postNew(ctx, feed, options.sleep ?? timer);
    outcome.posted = posting.posted;
    outcome.error = posting.error;
  }
  await finish(ctx, feed, startedAt, options, outcome);
  return outcome;
}
