// The uptime module's dashboard entry, built into web/dist/index.js and loaded by the dashboard at run time. React,
// @tanstack/react-query and @quad/web/sdk are the dashboard's own (its import map). The Uptime page
// (/dashboard/uptime): the add/edit form, the monitors table, and one monitor's detail with its latency chart and day
// bars; and the Overview card. Routes: routes.ts (README "Routes").
import { useState } from 'react';
import { OverviewSection, Page, type PageProps } from '@quad/web/sdk';
import type { Monitor } from './common.js';
import { useCheckNow } from './check-now.js';
import { MonitorDetail } from './monitor-detail.js';
import { MonitorForm } from './monitor-form.js';
import { MonitorList } from './monitor-list.js';

/** The page at /dashboard/uptime (manifest pages.list[0].component). */
export function UptimePage(_props: PageProps) {
  const [editing, setEditing] = useState<Monitor | null>(null);
  const [detail, setDetail] = useState<number | null>(null);
  const checks = useCheckNow();
  return (
    <Page title="Uptime">
      <p>
        Each monitor fetches a URL every few minutes and checks the status (and, if set, a keyword on the page). After the set number
        of failed checks in a row it is down: an event and a problem say so, and the first good check clears them.
      </p>
      <MonitorForm key={editing ? `edit-${editing.id}` : 'new'} monitor={editing} onDone={() => setEditing(null)} />
      <MonitorList checks={checks} onEdit={setEditing} onDetail={setDetail}
        onDeleted={(id) => { setDetail((d) => (d === id ? null : d)); setEditing((m) => (m?.id === id ? null : m)); }} />
      {detail !== null && <MonitorDetail key={`detail-${detail}`} id={detail} onClose={() => setDetail(null)} />}
    </Page>
  );
}

/** The module's card on Overview: monitors by state. */
export function UptimeCard() {
  return (
    <OverviewSection module="uptime" what="Uptime counts">
      {(s) => (
        <p data-testid="uptime-card">
          {Number(s.monitors)} monitors: {Number(s.up)} up, {Number(s.down)} down, {Number(s.pending)} pending, {Number(s.paused)} paused.
        </p>
      )}
    </OverviewSection>
  );
}
