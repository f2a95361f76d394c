// The uptime jobs. uptime.check_due (every minute, no org) claims due monitors of orgs with uptime on in batches:
// one statement across orgs (services.acrossOrgs) takes up to BATCH rows with `for update skip locked` and moves
// each an interval ahead, so any number of workers split the due monitors and none is checked twice. The claim
// commits before any probe: no transaction waits on HTTP. Each batch is then checked CONCURRENCY at a time and every
// outcome written in its own transaction on its org's handle (record.ts). A run stops after MAX_BATCHES; the next
// minute's run takes the rest. uptime.prune (daily) deletes raw checks after 30 days and day rollups after 400, across
// orgs, in chunks of their own transactions.
import { defineJob, Type, type AcrossOrgsDb, type CoreServices, type JobContext, type OrgDb } from '@quad/core';
import { probe } from './probe.js';
import { recordCheck } from './record.js';
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
/** A claimed monitor and the handle of its org, where its check is written. */
interface Due { monitor: Claimed; db: OrgDb }

/** Take up to BATCH due monitors (uptime on for their org, not paused) and move each an interval ahead. */
async function claimDue(all: AcrossOrgsDb, services: CoreServices, now: Date): Promise<Claimed[]> {
  const onByDefault = services.registry.get(MODULE)?.defaultEnabled === true;
  return all.sql<Claimed>`
    with due as (
      select m.id from uptime_monitors m join organizations o on o.id = m.organization_id
      where not m.paused and m.next_check_at <= ${now.toISOString()}::timestamptz and coalesce((o.modules ->> 'uptime')::boolean, ${onByDefault}::boolean)
      order by m.next_check_at limit ${BATCH} for update of m skip locked)
    update uptime_monitors m set next_check_at = ${now.toISOString()}::timestamptz + make_interval(secs => m.interval_seconds)
    from due where m.id = due.id
    returning m.id, m.organization_id, m.url, m.expected_status, m.timeout_ms, m.keyword`;
}

/** The next batch, claimed (and committed) across orgs, each monitor with its org's handle for the check's write. */
function claimBatch(services: CoreServices, now: Date): Promise<Due[]> {
  return services.acrossOrgs('uptime.check_due', async (all) =>
    (await claimDue(all, services, now)).map((monitor) => ({ monitor, db: all.forOrg(monitor.organization_id) })));
}

/** Check these monitors, CONCURRENCY at a time, each outcome written on its own. A failure of ours is logged, not thrown. */
export async function checkAll(services: CoreServices, log: JobContext['log'], due: Due[], at: Date): Promise<number> {
  let next = 0;
  let written = 0;
  const worker = async () => {
    while (next < due.length) {
      const { monitor, db } = due[next++]!;
      try {
        const result = await probe(monitor);
        if (await recordCheck(db, services, monitor, result, at)) written++;
      } catch (err) {
        log.error({ err, monitor: monitor.id }, 'uptime: a check could not be made or written');
        await services.logError({ orgId: monitor.organization_id, source: 'job', origin: CHECK_DUE_JOB, error: err, logLine: 'uptime: a check could not be made or written' });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
  return written;
}

export const checkDueJob = defineJob({
  name: CHECK_DUE_JOB,
  description: 'Checks every monitor whose interval has passed (orgs with uptime on), in batches that any number of workers split',
  cron: '* * * * *',
  payload: NowPayload,
  // The next minute's run is the retry: a monitor claimed by a failed run is due again an interval later.
  maxAttempts: 1,
  async handler({ services, payload, log }) {
    const now = payload.now ? new Date(payload.now) : new Date();
    let checked = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const due = await claimBatch(services, now);
      // Checked at the claim's time when tests fix it, else when each check ends.
      checked += await checkAll(services, log, due, payload.now ? now : new Date());
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
  async handler({ services, payload, log }) {
    const now = payload.now ? new Date(payload.now) : new Date();
    let checks = 0;
    // In chunks, each its own transaction, so no statement holds locks on a large backlog for long.
    for (;;) {
      const gone = await services.acrossOrgs('uptime.prune', (all) => all.one<{ n: number }>`
        with gone as (delete from uptime_checks where id in (
          select id from uptime_checks where checked_at < ${now.toISOString()}::timestamptz - make_interval(days => ${CHECKS_KEPT_DAYS}) limit ${PRUNE_CHUNK})
          returning 1)
        select count(*)::int as n from gone`);
      checks += gone!.n;
      if (gone!.n < PRUNE_CHUNK) break;
    }
    const days = await services.acrossOrgs('uptime.prune', (all) => all.one<{ n: number }>`
      with gone as (delete from uptime_days where day < (${now.toISOString()}::timestamptz at time zone 'utc')::date - ${DAYS_KEPT}::int returning 1)
      select count(*)::int as n from gone`);
    log.info({ checks, days: days!.n }, 'uptime.prune: old checks and days deleted');
  },
});
