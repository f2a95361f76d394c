// The org's pods, newest first, with the provider's live status (asked again every 15 seconds while shown, so a pod
// the schedule starts or stops shows it), kind and hardware, who may use it, and its buttons.
import { Card, DashboardLink, EmptyState, ErrorNote, Loading, Table, useApi } from '@quad/web/sdk';
import { hardware, plural, usePodsBase, type Pod } from './common.js';
import { PodActions } from './pod-actions.js';
import { StatusBadge } from './status-badge.js';

export const LIVE_STATUS_MS = 15_000;

/** Officers may use every pod; members a public one, or one that allows them. */
function accessOf(pod: Pod): string {
  if (pod.is_public) return 'Public';
  return pod.allowed_users.length ? plural(pod.allowed_users.length, 'member') : 'Officers only';
}
const cost = (pod: Pod) => (pod.cost_per_hour ? `$${pod.cost_per_hour.toFixed(2)}/h` : '—');

export function PodsCard() {
  const base = usePodsBase();
  const list = useApi<{ pods: Pod[] }>(`${base}/pods`, { refetchInterval: LIVE_STATUS_MS });
  const pods = list.data?.pods ?? [];
  return (
    <Card title="Pods">
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} title="Pods not loaded" />
        : pods.length === 0 ? <EmptyState title="No pods yet">Create one below: it runs on the org's own provider account.</EmptyState>
          : (
            <Table caption="Pods" rows={pods} rowKey={(p) => p.pod_id} columns={[
              { header: 'Name', cell: (p) => <><DashboardLink to={`/pods/${encodeURIComponent(p.pod_id)}`}>{p.name}</DashboardLink><div className="q-hint"><code>{p.pod_id}</code></div></> },
              { header: 'Status', cell: (p) => <StatusBadge pod={p} /> },
              { header: 'Hardware', cell: hardware },
              { header: 'Image', cell: (p) => <code>{p.image}</code> },
              { header: 'Access', cell: accessOf },
              { header: 'Cost', cell: cost, numeric: true },
              { header: <span className="q-visually-hidden">Actions</span>, cell: (p) => <PodActions pod={p} /> },
            ]} />
          )}
    </Card>
  );
}
