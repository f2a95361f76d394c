// Who is on a pod now (GET /pods/<pod_id>/members/connected, read over SSH; when it cannot be known, why not) and
// who got a certificate for it lately (the last 100, newest first).
import { Button, Card, EmptyState, ErrorNote, Loading, Table, invalidateApi, useApi } from '@quad/web/sdk';
import { duration, podPath, usePodsBase, when, type Pod, type PodMembers } from './common.js';

interface Connected {
  state: 'known' | 'unknown';
  reason: string | null;
  sessions: { username: string; is_admin: boolean; seconds: number; chat_user_id: string | null; name: string | null }[];
}

const role = (isAdmin: boolean) => (isAdmin ? 'Officer (root)' : 'Member');

export function ConnectionsPanel({ pod }: { pod: Pod }) {
  return (
    <>
      <ConnectedCard pod={pod} />
      <RecentCard pod={pod} />
    </>
  );
}

function ConnectedCard({ pod }: { pod: Pod }) {
  const path = `${podPath(usePodsBase(), pod.pod_id)}/members/connected`;
  const now = useApi<Connected>(path);
  const refresh = <Button onClick={() => void invalidateApi(path)} disabled={now.isFetching}>Refresh</Button>;
  return (
    <Card title="Connected now" actions={refresh}>
      {now.isPending ? <Loading label="Asking the pod…" /> : now.error ? <ErrorNote error={now.error} title="Not read" />
        : now.data.state === 'unknown' ? <p className="q-note q-note-warn" role="status">Not known: {now.data.reason}</p>
          : now.data.sessions.length === 0 ? <EmptyState title="Nobody is connected" />
            : (
              <Table caption="Connected now" rows={now.data.sessions} rowKey={(s) => `${s.username}-${s.seconds}`} columns={[
                { header: 'Member', cell: (s) => s.name ?? s.chat_user_id ?? '—' },
                { header: 'Login', cell: (s) => <code>{s.username}</code> },
                { header: 'As', cell: (s) => role(s.is_admin) },
                { header: 'For', cell: (s) => duration(s.seconds), numeric: true },
              ]} />
            )}
    </Card>
  );
}

function RecentCard({ pod }: { pod: Pod }) {
  const members = useApi<PodMembers>(`${podPath(usePodsBase(), pod.pod_id)}/members`);
  const recent = members.data?.recent ?? [];
  return (
    <Card title="Recent connections">
      <p className="q-hint">Each connect gets a certificate for 12 hours; the last 100 are listed, newest first.</p>
      {members.isPending ? <Loading /> : members.error ? <ErrorNote error={members.error} title="Connections not loaded" />
        : recent.length === 0 ? <EmptyState title="Nobody has connected yet" />
          : (
            <Table caption="Recent connections" rows={recent} rowKey={(r) => `${r.chat_user_id}-${r.created_at}`} columns={[
              { header: 'Member', cell: (r) => r.name ?? r.chat_user_id },
              { header: 'Login', cell: (r) => <code>{r.username}</code> },
              { header: 'As', cell: (r) => role(r.is_admin) },
              { header: 'When', cell: (r) => when(r.created_at) },
            ]} />
          )}
    </Card>
  );
}
