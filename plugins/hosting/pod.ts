// The app's pod as the provider describes it now (GET /apps/<name>/pod and the tool hostprov.app).
import { notFound, type CoreServices, type OrgDb } from '@quad/core';
import { findApp } from './apps.js';
import { askProvider, requireProvider, type ProviderPod } from './provider.js';

export function podView(podId: string, pod: ProviderPod | null) {
  return {
    pod_id: podId,
    status: pod ? pod.status : 'GONE',
    name: pod?.name ?? null,
    image: pod?.image ?? null,
    gpu: pod?.gpu ? { type_id: pod.gpu.typeId, count: pod.gpu.count } : null,
    cpu: pod?.cpu ? { flavor: pod.cpu.flavor, vcpus: pod.cpu.vcpus } : null,
    cost_per_hour: pod?.costPerHour ?? null,
  };
}

/** 404 before the first deploy made a pod; 400 when the org is not connected or the provider refuses; 424 when it fails. */
export async function livePod(db: OrgDb, services: CoreServices, name: string) {
  const app = await findApp(db, name);
  if (app.pod_id === null) throw notFound(`${name} has no pod yet: its first deploy makes one`, 'no_pod');
  const provider = await requireProvider(services, db);
  return podView(app.pod_id, await askProvider(() => provider.get(app.pod_id!)));
}
