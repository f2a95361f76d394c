// The org's apps (GET /apps): image, live deploy, a deploy in progress and the last health check; Open shows one.
import { Button, Card, EmptyState, ErrorNote, Loading, Table, useApi } from '@quad/web/sdk';
import { bad, ok, STATUS, useAppsBase, when, type App } from './common.js';

export function AppList({ onOpen }: { onOpen: (name: string) => void }) {
  const base = useAppsBase();
  const list = useApi<{ apps: App[] }>(base);
  const apps = list.data?.apps ?? [];
  return (
    <Card title="Apps">
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} title="Apps not loaded" />
        : apps.length === 0 ? <EmptyState title="No apps yet">Register one with the form, then deploy a tag of its image.</EmptyState>
          : (
            <Table caption="Apps" rows={apps} rowKey={(a) => a.name} columns={[
              { header: 'App', cell: (a) => <><code>{a.name}</code><div className="q-hint">{a.manifest.image}</div></> },
              { header: 'Live', cell: (a) => (a.current_deploy ? <code>{a.current_deploy.tag ?? a.current_deploy.digest?.slice(0, 19)}</code> : 'Not deployed') },
              { header: 'Status', cell: status },
              { header: 'Health', cell: health },
              { header: 'Actions', cell: (a) => <Button onClick={() => onOpen(a.name)} aria-label={`Open ${a.name}`}>Open</Button> },
            ]} />
          )}
    </Card>
  );
}

function status(a: App) {
  const d = a.latest_deploy;
  if (!d) return '—';
  if (a.deploying) return `${STATUS[d.status]}: ${d.tag ?? d.digest?.slice(0, 19)}`;
  return d.status === 'failed' ? <span style={bad}>Last deploy failed</span> : STATUS[d.status];
}

function health(a: App) {
  const h = a.health;
  if (h.status === 'unknown') return '—';
  return (
    <>
      <span style={h.status === 'healthy' ? ok : bad}>{h.status === 'healthy' ? 'Healthy' : 'Unhealthy'}</span>
      <div className="q-hint">{when(h.checked_at)}</div>
    </>
  );
}
