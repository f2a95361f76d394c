// Activity → Errors: the org's error log (requests, jobs and event handlers that failed), filtered by source, status
// and text; resolve, reopen and delete selected rows.
import { useState } from 'react';
import { useOrg } from '../../sdk/org.js';
import { EmptyState } from '../../sdk/ui/empty-state.js';
import { Field } from '../../sdk/ui/field.js';
import { BulkList } from './bulk-list.js';
import { Filters } from './filters.js';
import { StatusBadge, When, queryOf } from './format.js';

interface ErrorItem {
  id: number; source: string; origin: string; request_id: string | null; message: string; log_line: string; host: string;
  release: string; stack: string | null; status: 'open' | 'resolved'; created_at: string; resolved_at: string | null; resolved_by: string | null;
}

export function ErrorsTab() {
  const org = useOrg();
  const [status, setStatus] = useState('');
  const [source, setSource] = useState('');
  const [q, setQ] = useState('');
  return (
    <>
      <Filters label="Filter errors" onApply={(values) => setQ(values.q ?? '')} text={[{ name: 'q', label: 'Search', hint: 'in the message or origin' }]}>
        <Field as="select" label="Status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">All</option><option value="open">Open</option><option value="resolved">Resolved</option>
        </Field>
        <Field as="select" label="Source" value={source} onChange={(e) => setSource(e.target.value)}>
          <option value="">All</option><option value="request">Requests</option><option value="job">Jobs</option><option value="event">Event handlers</option>
        </Field>
      </Filters>
      <BulkList<ErrorItem>
        base={`/api/dashboard/${org.prefix}/errors`} query={queryOf({ status, source, q })} noun="error"
        rowLabel={(e) => `${e.origin}: ${e.message}`} invalidate={[`/api/dashboard/${org.prefix}/overview`]}
        empty={<EmptyState title="No errors">Nothing matches these filters.</EmptyState>}
        columns={[
          {
            header: 'Error', cell: (e) => (
              <>
                <div className="q-cell-title">{e.message}</div>
                <div className="q-cell-text">{e.source} · <span className="q-code">{e.origin}</span>{e.request_id && <> · request {e.request_id}</>} · {e.host} · {e.release}</div>
                {e.stack && <details><summary className="q-hint">Stack trace</summary><pre className="q-code">{e.stack}</pre></details>}
              </>
            ),
          },
          { header: 'Status', cell: (e) => <StatusBadge status={e.status} /> },
          { header: 'When', cell: (e) => <When at={e.created_at} /> },
        ]} />
    </>
  );
}
