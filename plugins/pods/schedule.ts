// The job podhost.schedule (spec "States and transitions", Pods; "Limits": every 5 minutes, the pod starts 10 minutes
// before a session): starts a pod when one of its sessions starts within 10 minutes, stops it when a session ended
// (or was deleted after the schedule started the pod for it) and no other session of the pod is open. Pods without
// due sessions are not looked at; orgs with the module off or without a provider key are skipped. The pods with due
// sessions are found across orgs (services.acrossOrgs, a short read); each is then scheduled on its org's own handle,
// one org-bound transaction per pod holding its row's lock, so two runs at once act once: the second reads what the
// first recorded. A provider failure for one pod raises the org a problem and the run goes on with the other pods.
// Each run also deletes the pods that creates the provider did not answer made all the same (lost-creates.ts).
import { defineJob, Type, type CoreServices, type OrgDb } from '@quad/core';
import type { FastifyBaseLogger } from 'fastify';
import { deleteLostPods, type LostCreatesSummary } from './lost-creates.js';
import { findPod, liveStatus, orgProvider, providerError } from './pods.js';
import { ProviderFailed, ProviderRefused, type PodProvider } from './provider/types.js';
import {
  markEndHandled, markStartHandled, podsWithDueSessions, pruneEndedSessions, unfinishedSessions, type DuePod, type SessionRow,
} from './sessions.js';
import { MODULE } from './settings.js';
import { groupByOrg, type OrgRows } from './sweep.js';

export const SCHEDULE_JOB = 'podhost.schedule';
/** A pod starts this long before its session (spec "Limits"). */
export const START_LEAD_MS = 10 * 60_000;
/** Provider statuses of a pod that is up or coming up: not started again, and stopped at the end. */
const UP = new Set(['RUNNING', 'PROVISIONING', 'STARTING']);

export const scheduleProblemKey = (podId: string) => `${SCHEDULE_JOB}:${podId}`;

export interface PodPlan {
  action: 'start' | 'stop' | null;
  /** Open sessions whose start was not handled yet. */
  starting: SessionRow[];
  /** Sessions that ended or were deleted, whose end was not handled yet. */
  ending: SessionRow[];
}

const ms = (d: Date) => new Date(d).getTime();

/** What the schedule does for one pod at `now`, given its sessions whose end was not handled yet. */
export function planPod(sessions: SessionRow[], now: Date): PodPlan {
  const t = now.getTime();
  // Open: it wants the pod up now (from 10 minutes before its start until its stop).
  const open = (s: SessionRow) => s.deleted_at === null && ms(s.start_at) - START_LEAD_MS <= t && t < ms(s.stop_at);
  const starting = sessions.filter((s) => open(s) && s.start_handled_at === null);
  const ending = sessions.filter((s) => s.deleted_at !== null || ms(s.stop_at) <= t);
  const action = starting.length ? 'start' : ending.length && !sessions.some(open) ? 'stop' : null;
  return { action, starting, ending };
}

/** The provider could not do what the schedule needed for a pod: raised to the org as a problem. */
class ScheduleFailed extends Error {
  constructor(readonly podName: string, readonly action: 'start' | 'stop', readonly reason: string) {
    super(`podhost.schedule could not ${action} pod ${podName}: ${reason}`);
  }
}

const isProviderError = (err: unknown) => err instanceof ProviderRefused || err instanceof ProviderFailed;

/** Start or stop the pod unless it already is so; true when the provider was asked to. */
async function apply(provider: PodProvider, podId: string, podName: string, action: 'start' | 'stop'): Promise<boolean> {
  const live = await liveStatus(provider, podId);
  if (!('pod' in live)) {
    throw new ScheduleFailed(podName, action, live.status === 'GONE' ? 'the provider no longer has this pod (terminate it here)' : live.reason);
  }
  const up = UP.has(live.pod.status);
  if (action === 'start' ? up : !up) return false;
  try {
    await provider[action](podId);
  } catch (err) {
    if (!isProviderError(err)) throw err;
    throw new ScheduleFailed(podName, action, (providerError(err) as Error).message);
  }
  return true;
}

/**
 * One pod's due transitions, in one transaction of its org under its row's lock (held while the provider is asked,
 * so a second run waits and then finds them handled); the action taken (if the provider was asked).
 */
async function schedulePod(db: OrgDb, services: CoreServices, provider: PodProvider, podId: string, now: Date): Promise<'start' | 'stop' | null> {
  const orgId = db.org;
  return db.transaction(async (tx) => {
    const pod = await findPod(tx, podId, true).catch((err: { statusCode?: number }) => {
      if (err.statusCode === 404) return null; // terminated meanwhile: its sessions went with it
      throw err;
    });
    if (!pod) return null;
    const plan = planPod(await unfinishedSessions(tx, podId), now);
    const acted = plan.action ? await apply(provider, podId, pod.name, plan.action) : false;
    const data = { pod_id: podId, name: pod.name, by: 'schedule' };
    if (plan.action === 'start') {
      await markStartHandled(tx, plan.starting.map((s) => s.id), acted, now);
      if (acted) {
        await services.emit(tx.em, {
          orgId, kind: 'podhost.pod_started', title: `Pod ${pod.name} started for session "${plan.starting[0].title}"`,
          data: { ...data, session_ids: plan.starting.map((s) => Number(s.id)) },
        });
      }
    }
    await markEndHandled(tx, plan.ending.map((s) => s.id), now);
    if (plan.action === 'stop' && acted) {
      await services.emit(tx.em, {
        orgId, kind: 'podhost.pod_stopped', title: `Pod ${pod.name} stopped: its sessions ended`,
        data: { ...data, session_ids: plan.ending.map((s) => Number(s.id)) },
      });
    }
    if (plan.action) await services.clearProblem(tx.em, orgId, scheduleProblemKey(podId));
    return acted ? plan.action : null;
  });
}

/** The org's provider when the module is on and the org has set its key; null (skipped) otherwise. */
async function schedulableProvider(db: OrgDb, services: CoreServices, log: FastifyBaseLogger): Promise<PodProvider | null> {
  const org = await db.one<{ modules: Record<string, boolean> }>`select modules from organizations where id = ${db.org}`;
  if (!org || !services.registry.isEnabled(org.modules ?? {}, MODULE)) return null;
  try {
    return await orgProvider(services, db);
  } catch (err) {
    log.warn({ err, org: db.org }, 'podhost.schedule: the org\'s provider key cannot be read; its pods are skipped');
    return null;
  }
}

export interface ScheduleSummary { pods: number; started: number; stopped: number; failed: number; pruned: number; lost: LostCreatesSummary }

/** Pods of every org with a transition due at `now` (read across orgs), grouped by org with its handle. */
function duePodsByOrg(services: CoreServices, now: Date): Promise<OrgRows<DuePod>[]> {
  return services.acrossOrgs('podhost.schedule', async (all) => groupByOrg(all, await podsWithDueSessions(all, now, START_LEAD_MS)));
}

/** One run at `now`: every pod with a due session; then sessions long ended are pruned and lost creates' pods deleted. */
export async function runSchedule(services: CoreServices, now: Date, log: FastifyBaseLogger): Promise<ScheduleSummary> {
  const due = await duePodsByOrg(services, now);
  const summary: ScheduleSummary = {
    pods: due.reduce((n, org) => n + org.rows.length, 0), started: 0, stopped: 0, failed: 0, pruned: 0, lost: { deleted: 0, expired: 0, failed: 0, waiting: 0 },
  };
  const unexpected: unknown[] = [];
  const providers = new Map<number, PodProvider | null>();
  const providerOf = async (db: OrgDb) => {
    if (!providers.has(db.org)) providers.set(db.org, await schedulableProvider(db, services, log));
    return providers.get(db.org) ?? null;
  };
  for (const { db, rows } of due) {
    const provider = await providerOf(db);
    if (!provider) continue;
    for (const { pod_id: podId } of rows) {
      try {
        const acted = await schedulePod(db, services, provider, podId, now);
        if (acted === 'start') summary.started++;
        if (acted === 'stop') summary.stopped++;
      } catch (err) {
        summary.failed++;
        if (!(err instanceof ScheduleFailed)) {
          log.error({ err, org: db.org, pod: podId }, 'podhost.schedule: a pod could not be scheduled');
          unexpected.push(err);
          continue;
        }
        log.warn({ org: db.org, pod: podId, action: err.action, reason: err.reason }, err.message);
        await services.raiseProblem(db.em.fork(), {
          orgId: db.org, key: scheduleProblemKey(podId),
          title: `Pod ${err.podName} could not be ${err.action === 'start' ? 'started' : 'stopped'} for its sessions`,
          message: `${err.reason}. The schedule tries again at its next run (every 5 minutes).`,
          data: { pod_id: podId, action: err.action },
        });
      }
    }
  }
  summary.pruned = await services.acrossOrgs('podhost.prune_sessions', (all) => pruneEndedSessions(all, now));
  summary.lost = await deleteLostPods(services, now, log, providerOf);
  // The other pods were done; a bug in one still fails the run, so it reaches the error log.
  if (unexpected.length) throw unexpected[0];
  return summary;
}

export const scheduleJob = defineJob({
  name: SCHEDULE_JOB,
  description: 'Starts pods 10 minutes before their sessions and stops them when a session ended and no other is open',
  payload: Type.Object({
    now: Type.Optional(Type.String({ format: 'date-time', description: 'the time to schedule for (tests); default: the clock' })),
  }, { additionalProperties: false }),
  cron: '*/5 * * * *',
  maxAttempts: 1, // the next run is 5 minutes away and does what this one missed
  async handler({ services, payload, log }) {
    const summary = await runSchedule(services, payload.now ? new Date(payload.now) : new Date(), log);
    if (summary.pods || summary.pruned || Object.values(summary.lost).some(Boolean)) log.info(summary, 'podhost.schedule: done');
  },
});
