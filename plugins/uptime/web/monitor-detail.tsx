// One monitor's detail (GET /monitors/<id>/checks and /days): the latency chart over its last 50 checks, its uptime
// per day over 30 days, and its last 10 checks with the reason of each failure.
import { Button, Card, ErrorNote, Loading, Table, useApi } from '@quad/web/sdk';
import { bad, monitorPath, ok, useUptimeBase, when, type Check, type Day, type Monitor } from './common.js';
import { DayBars } from './day-bars.js';
import { LatencyChart } from './latency-chart.js';
import { StateBadge } from './state-badge.js';

export function MonitorDetail({ id, onClose }: { id: number; onClose: () => void }) {
  const base = useUptimeBase();
  const monitor = useApi<Monitor>(monitorPath(base, id));
  const checks = useApi<{ checks: Check[] }>(`${monitorPath(base, id)}/checks?limit=50`);
  const days = useApi<{ days: Day[] }>(`${monitorPath(base, id)}/days?days=30`);
  const m = monitor.data;
  return (
    <Card title={m ? `Details of ${m.name}` : 'Details'} actions={<Button onClick={onClose}>Close</Button>}>
      {monitor.error ? <ErrorNote error={monitor.error} title="Monitor not loaded" /> : m && (
        <p>
          <StateBadge state={m.state} /> {m.url} · expects {m.expected_status}{m.keyword ? <> with “{m.keyword}”</> : null} · down after {m.down_after} failed
          check{m.down_after === 1 ? '' : 's'} in a row{m.state_changed_at ? <> · since {when(m.state_changed_at)}</> : null}
        </p>
      )}
      {checks.isPending ? <Loading /> : checks.error ? <ErrorNote error={checks.error} title="Checks not loaded" /> : <LatencyChart checks={checks.data.checks} />}
      {days.isPending ? <Loading /> : days.error ? <ErrorNote error={days.error} title="Days not loaded" /> : <DayBars days={days.data.days} />}
      {checks.data && checks.data.checks.length > 0 && (
        <div style={{ marginTop: 16 }}>
          <Table caption={`Latest checks of ${m?.name ?? id}`} showCaption rows={checks.data.checks.slice(0, 10)} rowKey={(c) => c.id} columns={[
            { header: 'When', cell: (c) => when(c.at) },
            { header: 'Result', cell: (c) => (c.ok ? <span style={ok}>Up</span> : <span style={bad}>Failed</span>) },
            { header: 'Status', numeric: true, cell: (c) => (c.status === null ? '—' : c.status) },
            { header: 'Latency', numeric: true, cell: (c) => `${c.latency_ms} ms` },
            { header: 'Reason', cell: (c) => (c.ok ? '' : <span style={bad}>{c.message ?? c.reason}</span>) },
          ]} />
        </div>
      )}
    </Card>
  );
}
