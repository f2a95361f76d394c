// Activity → Notifications: events of the last 30 days and problems, filtered by status, category, kind and text;
// resolve, reopen and delete selected rows. Problems cannot be deleted (they go when their cause is fixed).
import { useState } from 'react';
import { useOrg } from '../../sdk/org.js';
import { EmptyState } from '../../sdk/ui/empty-state.js';
import { Field } from '../../sdk/ui/field.js';
import { BulkList } from './bulk-list.js';
import { Filters } from './filters.js';
import { StatusBadge, When, queryOf } from './format.js';

export interface NotificationItem {
  id: number; category: 'event' | 'problem'; kind: string; key: string | null; title: string; message: string;
  data: Record<string, unknown>; status: 'open' | 'resolved'; occurrences: number; created_at: string; raised_at: string;
  resolved_at: string | null; resolved_by: string | null;
}

export const PROBLEMS_NOT_DELETABLE = 'Problems cannot be deleted: they disappear when their cause is fixed. Resolve them instead.';

export function NotificationsTab() {
  const org = useOrg();
  const [status, setStatus] = useState('');
  const [category, setCategory] = useState('');
  const [text, setText] = useState({ kind: '', q: '' });
  return (
    <>
      <Filters label="Filter notifications" onApply={(values) => setText({ kind: values.kind ?? '', q: values.q ?? '' })}
        text={[{ name: 'kind', label: 'Kind', hint: 'e.g. job.failed, or job' }, { name: 'q', label: 'Search' }]}>
        <Field as="select" label="Status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">All</option><option value="open">Open</option><option value="resolved">Resolved</option>
        </Field>
        <Field as="select" label="Category" value={category} onChange={(e) => setCategory(e.target.value)}>
          <option value="">All</option><option value="event">Events</option><option value="problem">Problems</option>
        </Field>
      </Filters>
      <BulkList<NotificationItem>
        base={`/api/dashboard/${org.prefix}/notifications`} query={queryOf({ status, category, ...text })} noun="notification"
        rowLabel={(n) => n.title} invalidate={[`/api/dashboard/${org.prefix}/overview`]}
        deleteBlocked={(rows) => (rows.some((r) => r.category === 'problem') ? PROBLEMS_NOT_DELETABLE : null)}
        empty={<EmptyState title="No notifications">Nothing matches these filters.</EmptyState>}
        columns={[
          { header: 'Notification', cell: (n) => <><div className="q-cell-title">{n.title}</div>{n.message && <div className="q-cell-text">{n.message}</div>}</> },
          { header: 'Kind', cell: (n) => <>{n.category === 'problem' ? <StatusBadge status="open">problem</StatusBadge> : null} <span className="q-code">{n.kind}</span></> },
          { header: 'Status', cell: (n) => <StatusBadge status={n.status} /> },
          { header: 'Times', cell: (n) => (n.category === 'problem' ? n.occurrences : ''), numeric: true },
          { header: 'Last raised', cell: (n) => <When at={n.raised_at} /> },
        ]} />
    </>
  );
}
