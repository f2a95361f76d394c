// One app: Deploy (a tag, or a sha256 digest), Roll back (to the last healthy deploy before the live one), the live
// pod from the provider, the deploy history (newest first) and Delete (asks first: the pod is terminated).
import { useState, type FormEvent } from 'react';
import {
  ApiError, Button, Card, ConfirmDialog, EmptyState, ErrorNote, Field, Loading, Table, apiFetch, useApi, useApiMutation, useOrg,
} from '@quad/web/sdk';
import { actions, appPath, bad, ok, row, STATUS, TRIGGER, useAppsBase, useRefresh, when, type App, type Deploy, type Pod } from './common.js';

export function AppDetail({ name, onClose, onDeleted }: { name: string; onClose: () => void; onDeleted: () => void }) {
  const base = useAppsBase();
  const path = appPath(base, name);
  const app = useApi<App>(path);
  const a = app.data;
  return (
    <Card title={`App ${name}`} actions={<Button onClick={onClose}>Close</Button>}>
      {app.isPending ? <Loading /> : app.error ? <ErrorNote error={app.error} title="App not loaded" /> : a && (
        <>
          <Summary app={a} />
          <DeployForm app={a} path={path} />
          <PodPanel app={a} path={path} />
          <History app={a} path={path} />
          <DeleteApp app={a} path={path} onDeleted={onDeleted} />
        </>
      )}
    </Card>
  );
}

function Summary({ app }: { app: App }) {
  const m = app.manifest;
  const live = app.current_deploy;
  return (
    <p>
      <code>{m.image}</code> on {m.gpu ? `${m.gpu.count} × ${m.gpu.type_id}` : `${m.cpu!.vcpus} vCPU ${m.cpu!.flavor}`}; ports {m.ports.map((p) => `${p.port}/${p.protocol}`).join(', ')};
      health GET {m.health.path} on {m.health.port}. {live ? <>Live: <code>{live.image}</code>.</> : 'Not deployed yet.'}
      {app.health.status !== 'unknown' && <span style={app.health.status === 'healthy' ? ok : bad}> {app.health.detail}</span>}
    </p>
  );
}

function DeployForm({ app, path }: { app: App; path: string }) {
  const refresh = useRefresh();
  const [ref, setRef] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);

  async function act(what: 'deploy' | 'rollback', e?: FormEvent) {
    e?.preventDefault();
    setBusy(true); setError(null); setNote(null);
    try {
      const value = ref.trim();
      const deploy = what === 'deploy'
        ? await apiFetch<Deploy>(`${path}/deploys`, { method: 'POST', body: value.startsWith('sha256:') ? { digest: value } : { tag: value } })
        : await apiFetch<Deploy>(`${path}/rollback`, { method: 'POST' });
      setNote(`${what === 'deploy' ? 'Deploying' : 'Rolling back to'} ${deploy.image}: it is live once its health check passes.`);
      setRef('');
      await refresh();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(e) => act('deploy', e)} aria-label={`Deploy ${app.name}`}>
      <div style={{ ...row, alignItems: 'flex-end' }}>
        <Field label="Tag or digest" value={ref} onChange={(e) => setRef(e.target.value)} required maxLength={135} placeholder="v1.2.0 or sha256:…" />
        <div style={{ ...actions, marginBottom: 12 }}>
          <Button type="submit" variant="primary" disabled={busy || app.deploying}>Deploy</Button>
          <Button onClick={() => act('rollback')} disabled={busy || app.deploying || !app.current_deploy}>Roll back</Button>
        </div>
      </div>
      {app.deploying && <p role="status">A deploy is in progress: {STATUS[app.latest_deploy!.status]}.</p>}
      {error !== null && <ErrorNote error={error} title="Not started" />}
      {note && error === null && <p role="status" style={ok}>{note}</p>}
    </form>
  );
}

function PodPanel({ app, path }: { app: App; path: string }) {
  const pod = useApi<Pod>(app.pod_id ? `${path}/pod` : null);
  if (!app.pod_id) return <p>Pod: none yet (the first deploy makes it).</p>;
  if (pod.isPending) return <Loading />;
  if (pod.error) return <ErrorNote error={pod.error} title="Pod not read from the provider" />;
  const p = pod.data!;
  return (
    <p data-testid="hosting-pod">
      Pod <code>{p.pod_id}</code>: {p.status}{p.image && <>, image <code>{p.image}</code></>}
      {p.cost_per_hour !== null && `, $${p.cost_per_hour.toFixed(2)}/h`}
    </p>
  );
}

function History({ app, path }: { app: App; path: string }) {
  const history = useApi<{ deploys: Deploy[]; next_before: number | null }>(`${path}/deploys?limit=20`);
  const deploys = history.data?.deploys ?? [];
  if (history.isPending) return <Loading />;
  if (history.error) return <ErrorNote error={history.error} title="Deploys not loaded" />;
  if (!deploys.length) return <EmptyState title="No deploys yet">Deploy a tag of {app.manifest.image}.</EmptyState>;
  return (
    <Table caption={`Deploys of ${app.name}`} showCaption rows={deploys} rowKey={(d) => d.id} columns={[
      { header: '#', numeric: true, cell: 'id' },
      { header: 'Image', cell: (d) => <code>{d.tag ?? d.digest?.slice(0, 19)}</code> },
      { header: 'Kind', cell: (d) => `${TRIGGER[d.trigger]}${d.rollback_of !== null ? ` to #${d.rollback_of}` : ''}` },
      { header: 'Status', cell: (d) => (d.id === app.current_deploy?.id ? `${STATUS[d.status]} (live)` : STATUS[d.status]) },
      { header: 'Started', cell: (d) => when(d.created_at) },
      { header: 'Error', cell: (d) => (d.error ? <span style={bad}>{d.error}</span> : '') },
    ]} />
  );
}

function DeleteApp({ app, path, onDeleted }: { app: App; path: string; onDeleted: () => void }) {
  const { prefix } = useOrg();
  const [asking, setAsking] = useState(false);
  const remove = useApiMutation('DELETE', path, { invalidate: [`/api/dashboard/${prefix}/apps`, `/api/dashboard/${prefix}/overview`] });
  return (
    <>
      <Button variant="danger" onClick={() => { remove.reset(); setAsking(true); }} aria-label={`Delete ${app.name}`}>Delete app</Button>
      <ConfirmDialog open={asking} title={`Delete ${app.name}?`} confirmLabel="Delete app" danger busy={remove.isPending}
        onCancel={() => setAsking(false)} onConfirm={() => remove.mutate(undefined, { onSuccess: () => { setAsking(false); onDeleted(); } })}>
        <p>{app.pod_id ? 'Its pod is terminated at the provider, then the' : 'The'} app and its deploy history are deleted.</p>
        {remove.error && <ErrorNote error={remove.error} title={remove.error instanceof ApiError && remove.error.status === 424 ? 'The provider failed: nothing deleted' : 'Not deleted'} />}
      </ConfirmDialog>
    </>
  );
}
