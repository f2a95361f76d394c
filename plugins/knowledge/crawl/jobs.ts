// The crawl jobs (spec "Events", document 1 "Other protections"): knowledge.crawl_due every 10 minutes takes up to
// KNOWLEDGE_CRAWL_BATCH due crawl records, one of each org in turn, and starts a knowledge.crawl_source for each
// (a knowledge.crawl_shared for a shared page of a submodule that some org subscribes to, shared-crawl.ts),
// spaced KNOWLEDGE_CRAWL_GAP_SECONDS apart per host; knowledge.crawl_source crawls one source, one run at a time per
// source; knowledge.reindex crawls every crawl record of an org with force, one run at a time per org. Orgs with
// knowledge off and inactive orgs (no Discord server bound) are left out of the schedule. The schedule takes due
// records of every org (and the shared pages) across orgs, and starts each org's crawl on that org's handle.
import { defineJob, notFound, Type, type AcrossOrgsDb, type CoreServices, type OrgDb } from '@quad/core';
import { startCountedJob } from '../job-start.js';
import { MODULE, settingsOf } from '../context.js';
import { crawlSource, type CrawlContext, type CrawlOutcome } from './crawl-source.js';
import { CRAWL_SHARED_JOB } from './shared-crawl.js';
import { sharedIn } from '../owner.js';
import { withSubscribers } from '../subscriptions.js';

export const CRAWL_SOURCE_JOB = 'knowledge.crawl_source';
export const CRAWL_DUE_JOB = 'knowledge.crawl_due';
export const REINDEX_JOB = 'knowledge.reindex';

export const crawlSourceJob = defineJob({
  name: CRAWL_SOURCE_JOB,
  description: 'Crawls one knowledge source: robots.txt, the page (rendered or a plain GET), main text, passages, embeddings, a new version',
  payload: Type.Object({ key: Type.String({ minLength: 1, maxLength: 255 }), force: Type.Boolean({ default: false }) }, { additionalProperties: false }),
  once: (payload) => payload.key,
  // A page's failure is recorded on the source and in the run log, not retried: the schedule tries again.
  maxAttempts: 2,
  async handler({ em, org, payload, services, log }) {
    const outcome = await crawlSource({ em, org: org!, services, log }, payload.key, { force: payload.force });
    log.info({ ...outcome }, outcome ? 'knowledge crawl done' : 'knowledge crawl: the crawl record was deleted');
  },
});

export const reindexJob = defineJob({
  name: REINDEX_JOB,
  description: 'Crawls every crawled source of the org again with force (shared sources are not the org\'s and are skipped)',
  once: 'org',
  maxAttempts: 1,
  async handler({ em, db, org, services, log }) {
    const keys = await db.sql<{ key: string; url: string }>`select key, url from knowledge_crawls where ${db.inOrg()} order by key`;
    const gap = hostGap(settingsOf(services).KNOWLEDGE_CRAWL_GAP_SECONDS);
    const outcomes: CrawlOutcome[] = [];
    for (const { key, url } of keys) {
      const outcome = await gap(url, () => crawlSource({ em, org: org!, services, log } satisfies CrawlContext, key, { force: true }));
      if (outcome) outcomes.push(outcome);
    }
    const failed = outcomes.filter((o) => o.error);
    log.info({ sources: outcomes.length, changed: outcomes.filter((o) => o.changed).length, failed: failed.length }, 'knowledge reindex done');
  },
});

/**
 * Runs the crawls of one job run so that two fetches to one host are at least `seconds` apart: a crawl of a host
 * starts `seconds` after the previous crawl of that host ended (counted from its start, a crawl whose first fetch
 * was robots.txt left less than the gap between its page and the next crawl's).
 */
function hostGap(seconds: number) {
  const lastEnd = new Map<string, number>();
  return async <T>(url: string, crawl: () => Promise<T>): Promise<T> => {
    const host = hostOf(url);
    const wait = (lastEnd.get(host) ?? -Infinity) + seconds * 1000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    try {
      return await crawl();
    } finally {
      lastEnd.set(host, Date.now());
    }
  };
}

const hostOf = (url: string) => { try { return new URL(url).host.toLowerCase(); } catch { return url; } };

/** A due crawl record: an org's (organization_id) or a submodule's shared page (shared_scope). */
interface Due { organization_id: number | null; shared_scope: string | null; key: string; url: string }

/** Why the schedule reads and writes across orgs: it takes every org's due records (and the shared pages). */
const CRAWL_DUE_REASON = 'knowledge.crawl_due';

/**
 * Take up to `batch` due crawl records, one of each org (and of each submodule in `submodules`, whose shared pages
 * take their turns like an org's) in turn, the oldest due first within each, and move each one's next crawl a
 * schedule ahead in the same statement, so no other run takes them.
 */
export async function takeDue(all: AcrossOrgsDb, services: CoreServices, batch: number, submodules: string[] = []): Promise<Due[]> {
  const knowledgeDefault = services.registry.get(MODULE)?.defaultEnabled === true;
  return all.sql<Due>`
    with due as (
      select c.id, c.organization_id, c.shared_scope, c.key, c.url,
             row_number() over (partition by c.organization_id, c.shared_scope order by c.next_at, c.id) as turn, c.next_at
      from knowledge_crawls c left join organizations o on o.id = c.organization_id
      where c.enabled and c.next_at <= now()
        and ((o.discord_guild_id is not null and coalesce((o.modules ->> 'knowledge')::boolean, ${knowledgeDefault}::boolean)) or ${sharedIn(submodules, 'c')})
    ), taken as (
      select id from due order by turn, next_at, id limit ${batch}
    )
    update knowledge_crawls c set next_at = now() + make_interval(hours => c.fetch_every_hours)
    from taken where c.id = taken.id and c.next_at <= now()
    returning c.organization_id, c.shared_scope, c.key, c.url`;
}

/** A taken record with when its crawl may start: the n-th of one host `n × gap` seconds from now. */
type Planned = Due & { runAt: Date };

function spacedPerHost(due: Due[], gapSeconds: number): Planned[] {
  const perHost = new Map<string, number>();
  return due.map((d) => {
    const host = hostOf(d.url);
    const n = perHost.get(host) ?? 0;
    perHost.set(host, n + 1);
    return { ...d, runAt: new Date(Date.now() + n * gapSeconds * 1000) };
  });
}

/** 1 when the start went in, 0 when that crawl is already queued or running (an officer's Run now: that run is this one). */
async function startedOnce(start: () => Promise<unknown>): Promise<number> {
  try {
    await start();
    return 1;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 409) throw err;
    return 0;
  }
}

/**
 * Take the due records and start the shared pages' crawls (runs of no org: the cross-org path's) in one transaction
 * across orgs; answer the orgs' records, each with its org's handle, to be started on it.
 */
function takeBatch(services: CoreServices, batch: number, gapSeconds: number, submodules: string[]) {
  return services.acrossOrgs(CRAWL_DUE_REASON, async (all) => {
    const planned = spacedPerHost(await takeDue(all, services, batch, submodules), gapSeconds);
    let started = 0;
    for (const d of planned.filter((p) => p.shared_scope !== null)) {
      started += await startedOnce(() => services.startJob(all.em, CRAWL_SHARED_JOB, { submodule: d.shared_scope, key: d.key, force: false }, { runAt: d.runAt }));
    }
    const orgs = planned.filter((p) => p.organization_id !== null).map((d) => ({ ...d, db: all.forOrg(d.organization_id!) }));
    return { started, orgs };
  });
}

export const crawlDueJob = defineJob({
  name: CRAWL_DUE_JOB,
  description: 'Starts the crawls that are due: up to KNOWLEDGE_CRAWL_BATCH, one source of each org (and shared page of each subscribed submodule) in turn, spaced per host',
  cron: '*/10 * * * *',
  maxAttempts: 1,
  async handler({ em, services, log }) {
    const settings = settingsOf(services);
    // Shared pages only of submodules some org subscribes to (none without the submodules module).
    const submodules = await withSubscribers(services, em);
    const taken = await takeBatch(services, settings.KNOWLEDGE_CRAWL_BATCH, settings.KNOWLEDGE_CRAWL_GAP_SECONDS, submodules);
    // Taken (moved a schedule ahead) and committed: each org's crawl starts on its own handle.
    let started = taken.started;
    for (const d of taken.orgs) {
      started += await startedOnce(() => services.startJob(d.db.em, CRAWL_SOURCE_JOB, { key: d.key, force: false }, { orgId: d.db.org, runAt: d.runAt }));
    }
    log.info({ started }, 'knowledge.crawl_due: crawls started');
  },
});

/** An officer's or a token's start: 404 without the crawl record, 409 while one runs, counted against jobs_per_day. */
export async function startCrawl(db: OrgDb, services: CoreServices, key: string, force: boolean): Promise<{ run_id: number }> {
  return startCountedJob(db, services, CRAWL_SOURCE_JOB, { key, force }, async (tx) => {
    const crawl = await tx.one`select 1 from knowledge_crawls where ${tx.inOrg()} and key = ${key}`;
    if (!crawl) throw notFound(`No crawl "${key}": save it with PUT /crawls/${key} first`, 'crawl_not_found');
  });
}

export const startReindex = (db: OrgDb, services: CoreServices) => startCountedJob(db, services, REINDEX_JOB, {});
