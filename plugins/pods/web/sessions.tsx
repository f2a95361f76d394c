// A pod's sessions (GET, POST, DELETE /pods/<pod_id>/sessions): time windows around which the schedule starts the pod
// (10 minutes before) and stops it (after the last open one ends). Times are typed on the officer's own clock and
// sent as ISO 8601 with its offset.
import { useState, type FormEvent } from 'react';
import { Button, Card, ConfirmDialog, EmptyState, ErrorNote, Field, Loading, Table, useApi, useApiMutation } from '@quad/web/sdk';
import { ok, podPath, row, usePodsBase, when, type Pod } from './common.js';
import { browserZone, zonedIso } from './local-time.js';

interface Session { id: number; title: string; start_at: string; stop_at: string; pod_started_by_schedule: boolean }

export function SessionsPanel({ pod }: { pod: Pod }) {
  return (
    <>
      <SessionListCard pod={pod} />
      <AddSessionCard pod={pod} />
    </>
  );
}

function SessionListCard({ pod }: { pod: Pod }) {
  const path = `${podPath(usePodsBase(), pod.pod_id)}/sessions`;
  const list = useApi<{ sessions: Session[] }>(path);
  const [deleting, setDeleting] = useState<Session | null>(null);
  const remove = useApiMutation('DELETE', `${path}/${deleting?.id ?? 0}`, { invalidate: [path] });
  const sessions = list.data?.sessions ?? [];
  return (
    <Card title="Sessions">
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} title="Sessions not loaded" />
        : sessions.length === 0 ? <EmptyState title="No sessions">Without sessions the schedule leaves the pod alone.</EmptyState>
          : (
            <Table caption="Sessions" rows={sessions} rowKey={(s) => s.id} columns={[
              { header: 'Title', cell: 'title' },
              { header: 'Start', cell: (s) => when(s.start_at) },
              { header: 'Stop', cell: (s) => when(s.stop_at) },
              { header: 'Pod started for it', cell: (s) => (s.pod_started_by_schedule ? 'Yes' : 'No') },
              {
                header: <span className="q-visually-hidden">Actions</span>,
                cell: (s) => <Button variant="danger" onClick={() => { remove.reset(); setDeleting(s); }} aria-label={`Delete session ${s.title}`}>Delete</Button>,
              },
            ]} />
          )}
      <ConfirmDialog open={deleting !== null} title={`Delete session ${deleting?.title ?? ''}?`} confirmLabel="Delete session" danger busy={remove.isPending}
        onCancel={() => setDeleting(null)} onConfirm={() => remove.mutate(undefined, { onSuccess: () => setDeleting(null) })}>
        <p>If the schedule started the pod for it, its next run stops the pod, unless another session is open.</p>
        {remove.error && <ErrorNote error={remove.error} title="Not deleted" />}
      </ConfirmDialog>
    </Card>
  );
}

const EMPTY = { title: '', start: '', stop: '' };

function AddSessionCard({ pod }: { pod: Pod }) {
  const path = `${podPath(usePodsBase(), pod.pod_id)}/sessions`;
  const add = useApiMutation<{ title: string; start_at: string; stop_at: string }, Session>('POST', path, { invalidate: [path] });
  const [draft, setDraft] = useState(EMPTY);
  const [done, setDone] = useState<string | null>(null);
  const edit = (change: Partial<typeof EMPTY>) => setDraft((d) => ({ ...d, ...change }));

  function submit(e: FormEvent) {
    e.preventDefault();
    setDone(null);
    const [start_at, stop_at] = [zonedIso(draft.start), zonedIso(draft.stop)];
    if (!start_at || !stop_at) return;
    add.mutate({ title: draft.title.trim(), start_at, stop_at }, { onSuccess: (s) => { setDone(`Session ${s.title} added.`); setDraft(EMPTY); } });
  }

  return (
    <Card title="Add a session">
      <form onSubmit={submit} aria-label="Add a session">
        <div style={row}>
          <Field label="Title" value={draft.title} onChange={(e) => edit({ title: e.target.value })} required maxLength={200} placeholder="Workshop" />
          <Field label="Start" type="datetime-local" value={draft.start} onChange={(e) => edit({ start: e.target.value })} required />
          <Field label="Stop" type="datetime-local" value={draft.stop} onChange={(e) => edit({ stop: e.target.value })} required hint="24 hours or less after the start" />
        </div>
        <p className="q-hint">Times on your clock ({browserZone()}). The schedule starts the pod 10 minutes before the start and stops it after the stop.</p>
        <Button type="submit" variant="primary" disabled={add.isPending}>Add session</Button>
      </form>
      {add.error && <ErrorNote error={add.error} title="Session not added" />}
      {done && !add.error && <p role="status" style={ok}>{done}</p>}
    </Card>
  );
}
