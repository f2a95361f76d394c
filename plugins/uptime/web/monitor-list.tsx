// The monitors (GET /monitors): state badge, URL, uptime over 24 h and 30 days, last check; per monitor Details,
// Check now (its outcome said above the table), Edit and Delete (asks first).
import { useState } from 'react';
import { Button, Card, ConfirmDialog, EmptyState, ErrorNote, Loading, Table, useApi, useApiMutation, useOrg } from '@quad/web/sdk';
import { actions, bad, every, monitorPath, ok, outcome, pct, row, useUptimeBase, when, type Monitor } from './common.js';
import { StateBadge } from './state-badge.js';
import type { CheckTrack, useCheckNow } from './check-now.js';

export function MonitorList({ checks, onEdit, onDetail, onDeleted }: {
  checks: ReturnType<typeof useCheckNow>; onEdit: (m: Monitor) => void; onDetail: (id: number) => void; onDeleted: (id: number) => void;
}) {
  const base = useUptimeBase();
  const { prefix } = useOrg();
  const list = useApi<{ monitors: Monitor[] }>(`${base}/monitors`);
  const [deleting, setDeleting] = useState<Monitor | null>(null);
  const remove = useApiMutation('DELETE', monitorPath(base, deleting?.id ?? 0), { invalidate: [`${base}/`, `/api/dashboard/${prefix}/overview`] });
  const monitors = list.data?.monitors ?? [];
  const named = (id: number) => monitors.find((m) => m.id === id)?.name ?? `monitor ${id}`;

  return (
    <Card title="Monitors">
      {Object.entries(checks.tracks).map(([id, track]) => (
        <CheckNote key={id} name={named(Number(id))} track={track} onDismiss={() => checks.dismiss(Number(id))} />
      ))}
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} title="Monitors not loaded" />
        : monitors.length === 0 ? <EmptyState title="No monitors yet">Add one with the form: a URL checked every few minutes.</EmptyState>
          : (
            <Table caption="Monitors" rows={monitors} rowKey={(m) => m.id} columns={[
              { header: 'Monitor', cell: (m) => <><strong>{m.name}</strong><div className="q-hint" style={{ wordBreak: 'break-all' }}>{m.url}</div></> },
              { header: 'State', cell: (m) => <><StateBadge state={m.state} />{m.consecutive_failures > 0 && m.state !== 'paused' && <div className="q-hint">{m.consecutive_failures} failed in a row</div>}</> },
              { header: '24 h', numeric: true, cell: (m) => <span style={{ whiteSpace: 'nowrap' }}>{pct(m.uptime_24h)}</span> },
              { header: '30 days', numeric: true, cell: (m) => <span style={{ whiteSpace: 'nowrap' }}>{pct(m.uptime_30d)}</span> },
              { header: 'Last check', cell: lastCheck },
              {
                header: 'Actions', cell: (m) => (
                  <div style={{ ...actions, minWidth: 220 }}>
                    <Button onClick={() => onDetail(m.id)} aria-label={`Details of ${m.name}`}>Details</Button>
                    <Button onClick={() => { void checks.start(m.id); onDetail(m.id); }} disabled={m.paused || checks.tracks[m.id]?.phase === 'running'}
                      aria-label={`Check ${m.name} now`}>Check now</Button>
                    <Button onClick={() => onEdit(m)} aria-label={`Edit ${m.name}`}>Edit</Button>
                    <Button variant="danger" onClick={() => { remove.reset(); setDeleting(m); }} aria-label={`Delete ${m.name}`}>Delete</Button>
                  </div>
                ),
              },
            ]} />
          )}
      <ConfirmDialog open={deleting !== null} title={`Delete ${deleting?.name ?? ''}?`} confirmLabel="Delete monitor" danger busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => remove.mutate(undefined, { onSuccess: () => { onDeleted(deleting!.id); checks.dismiss(deleting!.id); setDeleting(null); } })}>
        <p>The monitor and its whole history (checks and daily uptime) are deleted; an open "down" problem of it is cleared.</p>
        {remove.error && <ErrorNote error={remove.error} title="Not deleted" />}
      </ConfirmDialog>
    </Card>
  );
}

function lastCheck(m: Monitor) {
  const c = m.last_check;
  const next = m.paused ? 'Paused: not scheduled' : `Every ${every(m.interval_seconds)}`;
  if (!c) return <><div>Never checked</div><div className="q-hint">{next}</div></>;
  return (
    <>
      <div style={c.ok ? ok : bad}>{outcome(c)}</div>
      <div className="q-hint">{when(c.at)} · {next}</div>
    </>
  );
}

function CheckNote({ name, track, onDismiss }: { name: string; track: CheckTrack; onDismiss: () => void }) {
  const dismiss = <Button onClick={onDismiss} aria-label={`Dismiss the check of ${name}`}>Dismiss</Button>;
  if (track.phase === 'refused') return <div style={row}><ErrorNote error={track.error} title={`${name} not checked`} />{dismiss}</div>;
  const text = track.phase === 'running' ? `Checking ${name}…`
    : track.check.ok ? `Checked ${name}: ${outcome(track.check)}.` : `Check of ${name} failed: ${outcome(track.check)}.`;
  const failed = track.phase === 'done' && !track.check.ok;
  return (
    <div style={{ ...row, alignItems: 'center' }}>
      <p role="status" className={failed ? 'q-note q-note-error' : 'q-note'} style={{ flex: 1, margin: '4px 0', ...(track.phase === 'done' && !failed && ok) }}>{text}</p>
      {track.phase !== 'running' && dismiss}
    </div>
  );
}
