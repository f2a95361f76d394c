// Superadmin → Health: load, memory, disk, database size, container memory, bot and job queue, fetched again every
// 30 s (the server samples at most that often) with the time of the reading.
import { useApi } from '../../sdk/query.js';
import { Card } from '../../sdk/ui/card.js';
import { Loading } from '../../sdk/ui/notes.js';
import { AdminError } from './common.js';
// The route's answer is the server's own type (a type-only import: nothing of the server is bundled).
import type { HealthSample } from '../../../../src/admin/health.js';

const REFRESH_MS = 30_000;

/** 1536 → "1.5 KiB". */
export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`;
}

const percent = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 100)}\u00A0%` : '');

export function HealthTab() {
  const health = useApi<HealthSample>('/api/superadmin/health', { refetchInterval: REFRESH_MS });
  if (health.isPending) return <Loading />;
  if (health.error && !health.data) return <AdminError error={health.error} />;
  const h = health.data!;
  const used = h.memory.total - h.memory.free;
  return (
    <>
      <p className="q-hint" role="status">
        Reading of {new Date(h.sampled_at).toLocaleString()}; refreshed every 30 seconds.
        {health.isFetching && ' Refreshing…'}
      </p>
      {health.error && <AdminError title="The last refresh failed" error={health.error} />}
      <div className="q-card-grid">
        <Card title="Load">
          <dl className="q-facts">
            <dt>1 minute</dt><dd>{h.load.one.toFixed(2)}</dd>
            <dt>5 minutes</dt><dd>{h.load.five.toFixed(2)}</dd>
            <dt>15 minutes</dt><dd>{h.load.fifteen.toFixed(2)}</dd>
            <dt>CPUs</dt><dd>{h.load.cpus}</dd>
          </dl>
        </Card>
        <Card title="Memory">
          <dl className="q-facts">
            <dt>Used</dt><dd>{bytes(used)} of {bytes(h.memory.total)} ({percent(used, h.memory.total)})</dd>
            <dt>Free</dt><dd>{bytes(h.memory.free)}</dd>
            <dt>This process</dt><dd>{bytes(h.memory.process_rss)}</dd>
          </dl>
        </Card>
        <Card title="Container memory">
          {h.container_memory ? (
            <dl className="q-facts">
              <dt>Used</dt><dd>{bytes(h.container_memory.used)}</dd>
              <dt>Limit</dt><dd>{h.container_memory.limit === null ? 'none' : `${bytes(h.container_memory.limit)} (${percent(h.container_memory.used, h.container_memory.limit)} used)`}</dd>
            </dl>
          ) : <p className="q-hint">Not in a container that reports it (cgroup v2).</p>}
        </Card>
        <Card title="Disk">
          {h.disk ? (
            <dl className="q-facts">
              <dt>Folder</dt><dd className="q-code">{h.disk.path}</dd>
              <dt>Used</dt><dd>{bytes(h.disk.total - h.disk.free)} of {bytes(h.disk.total)} ({percent(h.disk.total - h.disk.free, h.disk.total)})</dd>
              <dt>Free</dt><dd>{bytes(h.disk.free)}</dd>
            </dl>
          ) : <p className="q-hint">The data folder could not be read.</p>}
        </Card>
        <Card title="Database">
          <dl className="q-facts"><dt>Size</dt><dd>{bytes(h.database.size_bytes)}</dd></dl>
        </Card>
        <Card title="Job queue">
          <dl className="q-facts">
            <dt>Waiting</dt><dd>{h.jobs.waiting}</dd>
            <dt>Running</dt><dd>{h.jobs.running}</dd>
            <dt>Failed</dt><dd>{h.jobs.failed}</dd>
          </dl>
        </Card>
        <Card title="Bot">
          <dl className="q-facts">
            <dt>State</dt><dd>{!h.bot.configured ? 'not configured' : h.bot.available ? 'available' : 'unavailable'}</dd>
            <dt>Servers</dt><dd>{h.bot.servers ?? '–'}</dd>
            <dt>Checked</dt><dd>{h.bot.checked_at ? new Date(h.bot.checked_at).toLocaleString() : '–'}</dd>
            {h.bot.error && <><dt>Error</dt><dd>{h.bot.error}</dd></>}
          </dl>
        </Card>
      </div>
    </>
  );
}
