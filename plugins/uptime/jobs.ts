// The uptime jobs. uptime.check_due (every minute, no org) claims due monitors of orgs with uptime on in batches:
// one statement takes up to BATCH rows with `for update skip locked` and moves each an interval ahead, so any
// number of workers split the due monitors and none is checked twice. Each batch is checked CONCURRENCY at a time
// and every outcome written in its own transaction (record.ts). A run stops after MAX_BATCHES; the next minute's run
// takes the rest. uptime.prune (daily) deletes raw checks after 30 days and day rollups after 400.
import { defineJob, Type, type CoreServices, type EntityManager, type JobContext } from '@quad/core';
import { probe } from './probe.js';
import { recordCheck, type Checked } from './record.js';
import type { MonitorRow } from './store.js';

export const MODULE = 'uptime';
export const CHECK_DUE_JOB = 'uptime.check_due';
export const PRUNE_JOB = 'uptime.prune';
export const BATCH = 25;
export const MAX_BATCHES = 8;
export const CONCURRENCY = 8;
export const CHECKS_KEPT_DAYS = 30;
export const DAYS_KEPT = 400;
const PRUNE_CHUNK = 5000;

const NowPayload = Type.Object({
  /** The run's time (tests set it): what is due, the checks' time and their UTC day. Default: now. */
  now: Type.Optional(Type.String({ format: 'date-time' })),
}, { additionalProperties: false });

type Claimed = Pick<MonitorRow, 'id' | 'organization_id' | 'url' | 'expected_status' | 'timeout_ms' | 'keyword'>;

/** Take up to BATCH due monitors (uptime on for their org, not paused) and move each an interval ahead. */
async function claimDue(em: EntityManager, services: CoreServices, now: Date): Promise<Claimed[]> {
  const onByDefault = services.registry.get(MODULE)?.defaultEnabled === true;
  return em.execute<Claimed[]>(
    `with due as (
       select m.id from uptime_monitors m join organizations o on o.id = m.organization_id
       where not m.paused and m.next_check_at <= ?::timestamptz and coalesce((o.modules ->> 'uptime')::boolean, ?::boolean)
       order by m.next_check_at limit ? for update of m skip locked)
     update uptime_monitors m set next_check_at = ?::timestamptz + make_interval(secs => m.interval_seconds)
     from due where m.id = due.id
     returning m.id, m.organization_id, m.url, m.expected_status, m.timeout_ms, m.keyword`,
    [now.toISOString(), onByDefault, BATCH, now.toISOString()]);
}

/** Check these monitors, CONCURRENCY at a time, each outcome written on its own. A failure of ours is logged, not thrown. */
export async function checkAll(em: EntityManager, services: CoreServices, log: JobContext['log'], monitors: Claimed[], at: Date): Promise<number> {
  let next = 0;
  let written = 0;
  const worker = async () => {
    while (next < monitors.length) {
      const monitor = monitors[next++]!;
      try {
        const result = await probe(monitor);
        if (await recordCheck(em.fork(), services, monitor as Checked, result, at)) written++;
      } catch (err) {
        log.error({ err, monitor: monitor.id }, 'uptime: a check could not be made or written');
        await services.logError({ orgId: monitor.organization_id, source: 'job', origin: CHECK_DUE_JOB, error: err, logLine: 'uptime: a check could not be made or written' });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, monitors.length) }, worker));
  return written;
}

export const checkDueJob = defineJob({
  name: CHECK_DUE_JOB,
  description: 'Checks every monitor whose interval has passed (orgs with uptime on), in batches that any number of workers split',
  cron: '* * * * *',
  payload: NowPayload,
  // The next minute's run is the retry: a monitor claimed by a failed run is due again an interval later.
  maxAttempts: 1,
  async handler({ em, services, payload, log }) {
    const now = payload.now ? new Date(payload.now) : new Date();
    let checked = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const due = await claimDue(em.fork(), services, now);
      // Checked at the claim's time when tests fix it, else when each check ends.
      checked += await checkAll(em, services, log, due, payload.now ? now : new Date());
      if (due.length < BATCH) break;
    }
    log.info({ checked }, 'uptime.check_due: monitors checked');
  },
});

export const pruneJob = defineJob({
  name: PRUNE_JOB,
  description: `Deletes raw checks older than ${CHECKS_KEPT_DAYS} days and day rollups older than ${DAYS_KEPT} days`,
  cron: '17 3 * * *',
  payload: NowPayload,
  maxAttempts: 3,
  async handler({ em, payload, log }) {
    const now = payload.now ? new Date(payload.now) : new Date();
    let checks = 0;
    // In chunks, so no statement holds locks on a large backlog for long.
    for (;;) {
      const [gone] = await em.execute<{ n: number }[]>(
        `with gone as (delete from uptime_checks where id in (
           select id from uptime_checks where checked_at < ?::timestamptz - make_interval(days => ?) limit ?) returning 1)
         select count(*)::int as n from gone`,
        [now.toISOString(), CHECKS_KEPT_DAYS, PRUNE_CHUNK]);
      checks += gone!.n;
      if (gone!.n < PRUNE_CHUNK) break;
    }
    const [days] = await em.execute<{ n: number }[]>(
      `with gone as (delete from uptime_days where day < (?::timestamptz at time zone 'utc')::date - ? returning 1) select count(*)::int as n from gone`,
      [now.toISOString(), DAYS_KEPT]);
    log.info({ checks, days: days!.n }, 'uptime.prune: old checks and days deleted');
  },
});
