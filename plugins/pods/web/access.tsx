// Who may use a pod (PUT /pods/<pod_id>): public (any member of the org's server), or the members allowed by name,
// added through a search and removed by a button. Officers of the org may always connect, as root.
import { Button, Card, EmptyState, ErrorNote, Loading, Table, useApi, useApiMutation } from '@quad/web/sdk';
import { podPath, usePodsBase, type Pod, type PodMembers } from './common.js';
import { MemberSearch } from './member-search.js';

type AccessChange = { is_public?: boolean; allowed_users?: string[] };

export function AccessPanel({ pod }: { pod: Pod }) {
  const base = usePodsBase();
  const path = podPath(base, pod.pod_id);
  const members = useApi<PodMembers>(`${path}/members`);
  const change = useApiMutation<AccessChange, Pod>('PUT', path, { invalidate: [`${base}/pods`] });
  const allowed = members.data?.access.allowed_users ?? [];
  const ids = allowed.map((a) => a.chat_user_id);

  return (
    <Card title="Access">
      <p className="q-hint">Officers of the org may always connect, as root. Members connect with the CLI and get a certificate for this pod only.</p>
      <p>
        <label className="q-switch">
          <input type="checkbox" checked={pod.is_public} disabled={change.isPending} onChange={(e) => change.mutate({ is_public: e.target.checked })} />
          Public: any member of the org's server may use it
        </label>
      </p>
      {change.error && <ErrorNote error={change.error} title="Access not changed" />}
      <h3 className="q-section-title">Allowed members{pod.is_public && ' (not needed while the pod is public)'}</h3>
      {members.isPending ? <Loading /> : members.error ? <ErrorNote error={members.error} title="Members not loaded" />
        : allowed.length === 0 ? <EmptyState title="No member is allowed by name">Find members below to allow them.</EmptyState>
          : (
            <Table caption="Allowed members" rows={allowed} rowKey={(a) => a.chat_user_id} columns={[
              { header: 'Member', cell: (a) => a.name ?? <span className="q-hint">name unknown</span> },
              { header: 'Chat user id', cell: (a) => <code>{a.chat_user_id}</code> },
              {
                header: <span className="q-visually-hidden">Actions</span>,
                cell: (a) => (
                  <Button variant="danger" disabled={change.isPending} aria-label={`Remove ${a.name ?? a.chat_user_id}`}
                    onClick={() => change.mutate({ allowed_users: ids.filter((id) => id !== a.chat_user_id) })}>Remove</Button>
                ),
              },
            ]} />
          )}
      <MemberSearch isChosen={(id) => ids.includes(id)} busy={change.isPending || members.isPending}
        onPick={(m) => change.mutate({ allowed_users: [...ids, m.id] })} />
    </Card>
  );
}
