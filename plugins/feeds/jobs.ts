// The feed jobs: feeds.run runs one feed (one run at a time per feed: a second start while one is queued or running
// is 409), feeds.run_due every 15 minutes starts the runs that are due. Orgs with feeds off (and orgs with no Discord
// server bound) are left out of the schedule; the core also skips a queued run once its module is off.
import { defineJob, Type, type CoreServices, type EntityManager } from '@quad/core';
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
  async handler({ em, org, payload, services, log }) {
    const outcome = await runFeed({ em, services, orgId: org!.id }, payload.key, {
      trigger: payload.trigger, postExisting: payload.post_existing, ...(payload.now && { now: new Date(payload.now) }),
    });
    log.info({ feed: payload.key, ...outcome }, outcome ? 'feed run done' : 'feed run: the feed was deleted');
  },
});

/** An officer's or a tool's Run now: 404 without the feed, 409 while a run of it is queued or running. */
export async function startRun(em: EntityManager, services: CoreServices, orgId: number, key: string, postExisting: boolean) {
  return em.transactional(async (tx) => {
    await findFeed(tx, orgId, key);
    const started = await services.startJob(tx, RUN_JOB, { key, trigger: 'manual', post_existing: postExisting }, { orgId });
    return { run_id: started.runId };
  });
}

/** Due feeds of orgs with feeds on, each moved a period ahead in the same statement, so no other run takes them. */
async function takeDue(em: EntityManager, services: CoreServices, now: Date): Promise<{ organization_id: number; key: string }[]> {
  const feedsDefault = services.registry.get(MODULE)?.defaultEnabled === true;
  return em.execute(
    `update feeds f set next_run_at = ?::timestamptz + make_interval(hours => f.every_hours)
     from organizations o
     where o.id = f.organization_id and f.enabled and f.next_run_at <= ?::timestamptz and o.discord_guild_id is not null
       and coalesce((o.modules ->> 'feeds')::boolean, ?::boolean)
     returning f.organization_id, f.key`, [now.toISOString(), now.toISOString(), feedsDefault]);
}

export const runDueJob = defineJob({
  name: RUN_DUE_JOB,
  description: 'Starts a run of every enabled feed whose every_hours have passed since its last run (orgs with feeds on)',
  cron: '*/15 * * * *',
  payload: Type.Object({ now: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false }),
  maxAttempts: 1,
  async handler({ em, services, payload, log }) {
    const now = payload.now ? new Date(payload.now) : new Date();
    const started = await em.transactional(async (tx) => {
      let count = 0;
      for (const due of await takeDue(tx, services, now)) {
        try {
          await services.startJob(tx, RUN_JOB, { key: due.key, trigger: 'schedule', post_existing: false, ...(payload.now && { now: payload.now }) }, { orgId: due.organization_id });
          count++;
        } catch (err) {
          // Already queued or running (a Run now): that run is this one.
          if ((err as { statusCode?: number }).statusCode !== 409) throw err;
        }
      }
      return count;
    });
    log.info({ started }, 'feeds.run_due: runs started');
  },
});
