// The Discord sync's jobs: calendar.sync_discord syncs one org (one run at a time per org: a second start while one
// is queued or running is 409), calendar.sync_due every 30 minutes starts it for each org with the calendar on, a
// Discord server bound and discord_sync on. A run started while sync is off (turned off after the start) does nothing.
// One org's statements go through the org-bound handle (README "Org isolation"); calendar.sync_due runs for no org:
// it reads every org's settings across orgs (services.acrossOrgs) and starts each org's run on that org's handle.
import { conflict, defineJob, Type, type AcrossOrgsDb, type CoreServices, type OrgDb } from '@quad/core';
import { runSync } from './sync.js';
import { MODULE } from './feed.js';

export const SYNC_JOB = 'calendar.sync_discord';
export const SYNC_DUE_JOB = 'calendar.sync_due';

/** The run's time; tests set it so "ended" is read against a fixed moment. */
const Payload = Type.Object({ now: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false });

/** The orgs whose sync is due (calendar on, a Discord server bound, discord_sync on), each with its handle. */
async function orgsToSync(all: AcrossOrgsDb, services: CoreServices): Promise<OrgDb[]> {
  const calendarDefault = services.registry.get(MODULE)?.defaultEnabled === true;
  const rows = await all.sql<{ id: number }>`
    select o.id from calendar_settings s join organizations o on o.id = s.organization_id
    where s.discord_sync and o.discord_guild_id is not null and coalesce((o.modules ->> ${MODULE}::text)::boolean, ${calendarDefault}::boolean)
    order by o.id`;
  return rows.map((r) => all.forOrg(r.id));
}

async function syncOn(db: OrgDb): Promise<boolean> {
  const row = await db.one<{ discord_sync: boolean }>`select discord_sync from calendar_settings where ${db.inOrg()}`;
  return row?.discord_sync ?? false;
}

export const syncJob = defineJob({
  name: SYNC_JOB,
  description: 'Copies the Discord server\'s scheduled events into the org\'s calendar (added, changed, canceled or deleted ones)',
  payload: Payload,
  once: 'org',
  // The schedule tries again in 30 minutes; retrying sooner would only hit the same outage.
  maxAttempts: 1,
  async handler({ db, payload, services, log }) {
    if (!(await syncOn(db))) {
      log.info('calendar.sync_discord: sync is off for the org, nothing done');
      return;
    }
    const outcome = await runSync({ db, services }, payload.now ? new Date(payload.now) : new Date());
    log.info(outcome, 'calendar.sync_discord done');
  },
});

/** Sync now (a route or a tool): 409 sync_off while the org's sync is off, 409 job_running while one is queued or running. */
export async function startSync(db: OrgDb, services: CoreServices) {
  return db.transaction(async (tx) => {
    if (!(await syncOn(tx))) throw conflict('Discord sync is off for this org: turn it on in the calendar settings first', 'sync_off');
    const started = await services.startJob(tx.em, SYNC_JOB, {}, { orgId: tx.org });
    return { run_id: started.runId };
  });
}

export const syncDueJob = defineJob({
  name: SYNC_DUE_JOB,
  description: 'Starts calendar.sync_discord for every org with the calendar on, a Discord server bound and Discord sync on',
  cron: '*/30 * * * *',
  payload: Payload,
  maxAttempts: 1,
  async handler({ services, payload, log }) {
    const orgs = await services.acrossOrgs('calendar.sync_due', (all) => orgsToSync(all, services));
    let started = 0;
    for (const db of orgs) {
      try {
        await services.startJob(db.em, SYNC_JOB, payload.now ? { now: payload.now } : {}, { orgId: db.org });
        started++;
      } catch (err) {
        // Already queued or running (a Sync now): that run is this one.
        if ((err as { statusCode?: number }).statusCode !== 409) throw err;
      }
    }
    log.info({ started }, 'calendar.sync_due: syncs started');
  },
});
