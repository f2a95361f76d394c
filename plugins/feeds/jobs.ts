// The feed jobs: feeds.run runs one feed (one run at a time per feed: a second start while one is queued or running
// is 409), feeds.run_due every 15 minutes starts the runs that are due. Orgs with feeds off (and orgs with no Discord
// server bound) are left out of the schedule; the core also skips a queued run once its module is off. The schedule
// is the module's one piece of work across orgs: it claims the due feeds of every org on the cross-org path (one
// short statement), then starts each run on its own org's handle (README "Org isolation").
import { defineJob, Type, type AcrossOrgsDb, type CoreServices, type JobContext, type OrgDb } from '@quad/core';
import { runFeed } from './run.js';
import { findFeed } from './store.js';

export const RUN_JOB = 'feeds.run';
export const RUN_DUE_JOB = 'feeds.run_due';
export const MODULE = 'feeds';

const RunPayload = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 40 }),
  trigger: Type.Union([Type.Literal('schedule'), Type.Literal('manual')], { default: 'manual' }),
  post_existing: Type.Boolean({ default: false }),
  /** The run's time; tests set it so dates in listings are read against a fixed day. */
  now: Type.Optional(Type.String({ format: 'date-time' })),
}, { additionalProperties: false });

export const runJob = defineJob({
  name: RUN_JOB,
  description: 'Runs one feed: reads its listing, records the items, posts up to 25 new ones 0.5 s apart, writes the run record',
  payload: RunPayload,
  once: (payload) => payload.key,
  // Posted items are marked one by one, so a retried run never posts one twice; the schedule retries the rest.
  maxAttempts: 2,
  async handler({ db, payload, services, log }) {
    const outcome = await runFeed({ db, services }, payload.key, {
      trigger: payload.trigger, postExisting: payload.post_existing, ...(payload.now && { now: new Date(payload.now) }),
    });
    log.info({ feed: payload.key, ...outcome }, outcome ? 'feed run done' : 'feed run: the feed was deleted');
  },
});

/** An officer's or a tool's Run now: 404 without the feed, 409 while a run of it is queued or running. */
export async function startRun(db: OrgDb, services: CoreServices, key: string, postExisting: boolean) {
  return db.transaction(async (tx) => {
    await findFeed(tx, key);
    const started = await services.startJob(tx.em, RUN_JOB, { key, trigger: 'manual', post_existing: postExisting }, { orgId: tx.org });
    return { run_id: started.runId };
  });
}

interface DueFeed { organization_id: number; key: string }

/** One org-bound handle per org a sweep found (on the ordinary path: usable after the cross-org work returned). */
function handlesOf(all: AcrossOrgsDb): (orgId: number) => OrgDb {
  const handles = new Map<number, OrgDb>();
  return (orgId) => {
    let db = handles.get(orgId);
    if (!db) handles.set(orgId, (db = all.forOrg(orgId)));
    return db;
  };
}

/** Due feeds of orgs with feeds on (every org's), each moved a period ahead in the same statement, so no other run takes them. */
async function takeDue(all: AcrossOrgsDb, services: CoreServices, now: Date): Promise<DueFeed[]> {
  const feedsDefault = services.registry.get(MODULE)?.defaultEnabled === true;
  return all.sql<DueFeed>`
    update feeds f set next_run_at = ${now.toISOString()}::timestamptz + make_interval(hours => f.every_hours)
    from organizations o
    where o.id = f.organization_id and f.enabled and f.next_run_at <= ${now.toISOString()}::timestamptz and o.discord_guild_id is not null
      and coalesce((o.modules ->> 'feeds')::boolean, ${feedsDefault}::boolean)
    returning f.organization_id, f.key`;
}

/**
 * Start the scheduled run of each taken feed, on its org's handle. A feed whose Run now is still queued is that run
 * (409). Any other failure is thrown once every feed was tried: the claims are committed, and a feed left unstarted
 * waits for its next period.
 */
async function startDue(ctx: Pick<JobContext, 'services' | 'log'>, orgs: (orgId: number) => OrgDb, due: DueFeed[], now?: string): Promise<number> {
  let started = 0;
  let failure: unknown = null;
  for (const feed of due) {
    try {
      const db = orgs(feed.organization_id);
      await ctx.services.startJob(db.em, RUN_JOB, { key: feed.key, trigger: 'schedule', post_existing: false, ...(now && { now }) }, { orgId: db.org });
      started++;
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 409) continue;
      ctx.log.error({ err, org: feed.organization_id, feed: feed.key }, 'feeds.run_due: a run could not be started');
      failure ??= err;
    }
  }
  if (failure) throw failure;
  return started;
}

export const runDueJob = defineJob({
  name: RUN_DUE_JOB,
  description: 'Starts a run of every enabled feed whose every_hours have passed since its last run (orgs with feeds on)',
  cron: '*/15 * * * *',
  payload: Type.Object({ now: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false }),
  maxAttempts: 1,
  async handler({ services, payload, log }) {
    const now = payload.now ? new Date(payload.now) : new Date();
    const { due, orgs } = await services.acrossOrgs('feeds.run_due', async (all) => ({
      due: await takeDue(all, services, now),
      orgs: handlesOf(all),
    }));
    const started = await startDue({ services, log }, orgs, due, payload.now);
    log.info({ started }, 'feeds.run_due: runs started');
  },
});
