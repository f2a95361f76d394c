// Write one check's outcome, in one transaction per monitor: the check row, its UTC day's rollup, and the monitor's
// state. The state moves (spec of the task, README "States"): a success makes it up; `down_after` failures in a row
// make it down. Going down emits `uptime.down` and raises the problem `uptime.down:<id>`; the first success after
// that emits `uptime.up` and clears it. A monitor deleted, or whose URL changed, since the check began keeps no record
// of it (the check tested something that is no longer asked).
import type { CoreServices, OrgDb } from '@quad/core';
import type { ProbeResult } from './probe.js';
import type { MonitorRow } from './store.js';

export const problemKey = (monitorId: number) => `uptime.down:${monitorId}`;
export const DOWN_EVENT = 'uptime.down';
export const UP_EVENT = 'uptime.up';

export type Transition = 'down' | 'up' | null;
export interface Recorded { checkId: number; state: MonitorRow['state']; transition: Transition }

/** What was checked: the monitor as it was claimed (the handle says whose). */
export type Checked = Pick<MonitorRow, 'id' | 'url'>;

/** Write a check of one monitor of `db`'s org; null when the monitor is gone or tests another URL now. */
export async function recordCheck(
  db: OrgDb, services: CoreServices, checked: Checked, result: ProbeResult, at: Date,
  /** Runs last in the same transaction (an officer's Check now audits there). */
  also?: (tx: OrgDb) => Promise<void>,
): Promise<Recorded | null> {
  return db.transaction(async (tx) => {
    const monitor = await tx.one<MonitorRow>`
      select * from uptime_monitors where ${tx.inOrg()} and id = ${checked.id} and url = ${checked.url} for update`;
    if (!monitor) return null;
    const check = await tx.one<{ id: string }>`
      insert into uptime_checks (organization_id, monitor_id, checked_at, ok, status, latency_ms, reason, message)
      values (${tx.org}, ${monitor.id}, ${at}, ${result.ok}, ${result.status}, ${result.latency_ms}, ${result.reason}, ${result.message})
      returning id`;
    const answered = result.status !== null;
    const latency = answered ? result.latency_ms : null;
    await tx.run`
      insert into uptime_days as d (organization_id, monitor_id, day, checks, up, answered, latency_sum, latency_min, latency_max)
      values (${tx.org}, ${monitor.id}, (${at.toISOString()}::timestamptz at time zone 'utc')::date, 1, ${result.ok ? 1 : 0}, ${answered ? 1 : 0},
              ${latency ?? 0}, ${latency}, ${latency})
      on conflict (monitor_id, day) do update set
        checks = d.checks + 1, up = d.up + excluded.up, answered = d.answered + excluded.answered,
        latency_sum = d.latency_sum + excluded.latency_sum,
        latency_min = least(d.latency_min, excluded.latency_min), latency_max = greatest(d.latency_max, excluded.latency_max)`;

    const failures = result.ok ? 0 : monitor.consecutive_failures + 1;
    let state = monitor.state;
    let transition: Transition = null;
    if (result.ok) {
      if (state === 'down') transition = 'up';
      state = 'up';
    } else if (state !== 'down' && failures >= monitor.down_after) {
      state = 'down';
      transition = 'down';
    }
    await tx.run`
      update uptime_monitors set consecutive_failures = ${failures}, state = ${state},
        state_changed_at = case when state <> ${state} then ${at.toISOString()}::timestamptz else state_changed_at end,
        last_check_at = ${at}, last_ok = ${result.ok}, last_status = ${result.status}, last_latency_ms = ${result.latency_ms},
        last_reason = ${result.reason}, last_message = ${result.message}
      where ${tx.inOrg()} and id = ${monitor.id}`;

    const orgId = tx.org;
    const data = { monitor_id: monitor.id, name: monitor.name, url: monitor.url };
    if (transition === 'down' && !monitor.paused) {
      const why = `${failures} failed check${failures === 1 ? '' : 's'} in a row; last: ${result.message ?? result.reason}`;
      await services.emit(tx.em, { orgId, kind: DOWN_EVENT, title: `${monitor.name} is down`, message: why, data: { ...data, reason: result.reason } });
      await services.raiseProblem(tx.em, { orgId, key: problemKey(monitor.id), kind: 'uptime.down', title: `${monitor.name} is down`, message: why, data });
    } else if (transition === 'up') {
      await services.emit(tx.em, { orgId, kind: UP_EVENT, title: `${monitor.name} is up again`, message: `answered ${result.status} in ${result.latency_ms} ms`, data });
      await services.clearProblem(tx.em, orgId, problemKey(monitor.id));
    }
    await also?.(tx);
    return { checkId: Number(check!.id), state, transition };
  });
}
