// Check now (an officer's button, the route and no tool): the same probe and the same write as the schedule's
// (record.ts), run in the request, so the answer is the check itself. It pushes the schedule's next check an
// interval back. A paused monitor is not checked (409 monitor_paused): resume it first.
import { conflict, type CoreServices, type OrgDb } from '@quad/core';
import { probe } from './probe.js';
import { recordCheck } from './record.js';
import { missing, type MonitorRow } from './store.js';

export async function checkNow(db: OrgDb, services: CoreServices, id: number, also?: (tx: OrgDb) => Promise<void>) {
  const monitor = await db.one<MonitorRow>`select * from uptime_monitors where ${db.inOrg()} and id = ${id}`;
  if (!monitor) throw missing(id);
  if (monitor.paused) throw conflict(`Monitor ${id} is paused: resume it to check it`, 'monitor_paused');
  const result = await probe(monitor);
  const at = new Date();
  const recorded = await recordCheck(db, services, monitor, result, at, async (tx) => {
    await tx.run`update uptime_monitors set next_check_at = ${at}::timestamptz + make_interval(secs => interval_seconds) where ${tx.inOrg()} and id = ${id}`;
    await also?.(tx);
  });
  // Deleted or given another URL while it was checked.
  if (!recorded) throw conflict(`Monitor ${id} was changed or deleted during the check; check it again`, 'monitor_changed');
  return {
    id: recorded.checkId, at: at.toISOString(), ok: result.ok, status: result.status, latency_ms: result.latency_ms,
    reason: result.reason, message: result.message,
  };
}
