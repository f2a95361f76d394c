// Lost creates (compute_lost_creates): a create the provider did not answer (a timeout, a failure, an unreadable
// answer) may still make its pod, and a pod made for a create that failed afterwards may not delete. Either way the
// officer was told the create failed, yet the pod would run and bill on the org's account with no record here. Each
// create names itself on its pod (PodSpec.createId); such a create is remembered, and the job podhost.schedule
// deletes the pod that carries its id, then forgets it (after 24 hours it gives up: the provider made nothing).
import type { CoreServices, OrgDb } from '@quad/core';
import type { FastifyBaseLogger } from 'fastify';
import type { PodProvider } from './provider/types.js';
import { groupByOrg, type OrgRows } from './sweep.js';

/** How long a lost create is looked for at the provider. */
export const LOST_CREATE_HOURS = 24;
export const LOST_POD_DELETED = 'podhost.lost_pod_deleted';

/**
 * Remember a create whose pod may exist at the provider. `db` must not be in the create's transaction, which rolls
 * back: its own statement (an org-bound handle outside any explicit transaction) is kept whatever the create does.
 */
export async function recordLostCreate(db: OrgDb, createId: string, name: string): Promise<void> {
  await db.run`
    insert into compute_lost_creates (organization_id, create_id, name) values (${db.org}, ${createId}, ${name})
    on conflict (create_id) do nothing`;
}

interface LostCreate { id: string; organization_id: number; create_id: string; name: string; expired: boolean }

/** Pods deleted; creates forgotten after the window; creates the provider could not be asked about now; creates
 * waiting for their org's module or key. */
export interface LostCreatesSummary { deleted: number; expired: number; failed: number; waiting: number }

/** Every org's lost creates (read across orgs, in one short transaction), grouped by org with its handle. */
function lostCreatesByOrg(services: CoreServices, now: Date): Promise<OrgRows<LostCreate>[]> {
  return services.acrossOrgs('podhost.lost_creates', async (all) => groupByOrg(all, await all.sql<LostCreate>`
    select id, organization_id, create_id, name, created_at < ${now.toISOString()}::timestamptz - make_interval(hours => ${LOST_CREATE_HOURS}) as expired
    from compute_lost_creates order by organization_id, id`));
}

/**
 * Delete the pods that lost creates made, for every org that has some (`providerOf` gives the org's provider, or null
 * when the module is off or the key cannot be read: its creates wait). A provider that cannot list or delete now is
 * logged and asked again at the next run; a create not found after LOST_CREATE_HOURS is forgotten. Each org's work
 * (the provider's calls, the rows it deletes) is on its own handle, after the read across orgs.
 */
export async function deleteLostPods(
  services: CoreServices, now: Date, log: FastifyBaseLogger, providerOf: (db: OrgDb) => Promise<PodProvider | null>,
): Promise<LostCreatesSummary> {
  const summary: LostCreatesSummary = { deleted: 0, expired: 0, failed: 0, waiting: 0 };
  for (const { db, rows: lost } of await lostCreatesByOrg(services, now)) {
    const provider = await providerOf(db);
    if (!provider) {
      summary.waiting += lost.length; // looked for once the org's module and key are back
      continue;
    }
    const looked = await deleteOrgLostPods(db, services, provider, lost, log);
    summary.deleted += looked.filter((l) => l.outcome === 'deleted').length;
    summary.failed += looked.filter((l) => l.outcome === 'failed').length;
    // Not at the provider after the whole window: it did not make the pod.
    const expired = looked.filter((l) => l.outcome === 'absent' && l.row.expired).map((l) => l.row);
    if (expired.length) {
      await db.run`delete from compute_lost_creates where ${db.inOrg()} and id = any(${expired.map((r) => r.id)}::bigint[])`;
      log.warn({ org: db.org, creates: expired.map((r) => r.create_id) }, `podhost.schedule: ${expired.length} lost create(s) looked for ${LOST_CREATE_HOURS} h without a pod: forgotten`);
      summary.expired += expired.length;
    }
  }
  return summary;
}

type Looked = { row: LostCreate; outcome: 'deleted' | 'absent' | 'failed' };

async function deleteOrgLostPods(db: OrgDb, services: CoreServices, provider: PodProvider, lost: LostCreate[], log: FastifyBaseLogger): Promise<Looked[]> {
  const orgId = db.org;
  let pods;
  try {
    pods = await provider.list();
  } catch (err) {
    log.warn({ err, org: orgId }, 'podhost.schedule: the provider cannot list the org\'s pods; lost creates are looked for at the next run');
    return lost.map((row) => ({ row, outcome: 'failed' as const }));
  }
  const looked: Looked[] = [];
  for (const row of lost) {
    const pod = pods.find((p) => p.createId === row.create_id);
    if (!pod) {
      looked.push({ row, outcome: 'absent' });
      continue;
    }
    try {
      await provider.delete(pod.id);
    } catch (err) {
      log.warn({ err, org: orgId, pod: pod.id }, 'podhost.schedule: a pod made by a lost create could not be deleted; tried again at the next run');
      looked.push({ row, outcome: 'failed' });
      continue;
    }
    await db.transaction(async (tx) => {
      await tx.run`delete from compute_lost_creates where ${tx.inOrg()} and id = ${row.id}`;
      await services.emit(tx.em, {
        orgId, kind: LOST_POD_DELETED, title: `Pod ${row.name} deleted: the provider made it after its create had failed`,
        data: { pod_id: pod.id, name: row.name },
      });
    });
    log.info({ org: orgId, pod: pod.id, name: row.name }, 'podhost.schedule: deleted a pod made by a lost create');
    looked.push({ row, outcome: 'deleted' });
  }
  return looked;
}
