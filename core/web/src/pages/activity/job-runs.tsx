// Activity → Job runs: the org's runs filtered by status and job, and Retry on a failed run (it runs again, with the
// same payload, as a new run; POST /job-runs/<id>/retry). 100 rows, then more.
import { useState } from 'react';
import { apiFetch } from '../../sdk/api.js';
import { useOrg } from '../../sdk/org.js';
import { invalidateApi } from '../../sdk/query.js';
import { usePagedApi } from '../../sdk/paged.js';
import { Button } from '../../sdk/ui/button.js';
import { EmptyState } from '../../sdk/ui/empty-state.js';
import { Field } from '../../sdk/ui/field.js';
import { ErrorNote, Loading } from '../../sdk/ui/notes.js';
import { Table, type Column } from '../../sdk/ui/table.js';
import { Filters } from './filters.js';
import { StatusBadge, When, plural, queryOf } from './format.js';

export interface JobRunItem {
  id: number; name: string; status: string; attempts: number; error: string | null; queued_at: string; started_at: string | null; finished_at: string | null;
}

export const jobRunColumns: Column<JobRunItem>[] = [
  { header: 'Run', cell: (r) => `#${r.id}`, numeric: true },
  { header: 'Job', cell: (r) => <><span className="q-code">{r.name}</span>{r.error && <div className="q-cell-text">{r.error}</div>}</> },
  { header: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
  { header: 'Attempts', cell: 'attempts', numeric: true },
  { header: 'Queued', cell: (r) => <When at={r.queued_at} /> },
  { header: 'Finished', cell: (r) => <When at={r.finished_at} /> },
];

export function JobRunsTab() {
  const org = useOrg();
  const [status, setStatus] = useState('');
  const [name, setName] = useState('');
  const base = `/api/dashboard/${org.prefix}/job-runs`;
  const list = usePagedApi<JobRunItem>(`${base}${queryOf({ status, name })}`);
  const [busy, setBusy] = useState<number | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [failure, setFailure] = useState<{ run: number; error: unknown } | null>(null);

  const retry = async (run: JobRunItem) => {
    setBusy(run.id);
    setDone(null);
    setFailure(null);
    try {
      const answer = await apiFetch<{ run: JobRunItem }>(`${base}/${run.id}/retry`, { method: 'POST' });
      setDone(`Run #${run.id} of ${run.name} runs again as run #${answer.run.id}.`);
      await Promise.all([invalidateApi(base), invalidateApi(`/api/dashboard/${org.prefix}/overview`)]);
    } catch (error) {
      setFailure({ run: run.id, error });
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <Filters label="Filter job runs" onApply={(v) => setName(v.name ?? '')} text={[{ name: 'name', label: 'Job', hint: 'a job, or its module: feeds' }]}>
        <Field as="select" label="Status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">All</option>
          {['queued', 'running', 'succeeded', 'failed', 'skipped'].map((s) => <option key={s} value={s}>{s[0]!.toUpperCase() + s.slice(1)}</option>)}
        </Field>
      </Filters>
      {done && <p className="q-note q-note-ok" role="status">{done}</p>}
      {failure && <ErrorNote title={`Run #${failure.run} could not be retried`} error={failure.error} />}
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} /> : list.items.length === 0
        ? <EmptyState title="No job runs">Nothing matches these filters.</EmptyState>
        : (
          <>
            <p className="q-hint">{plural(list.total, 'run')}</p>
            <Table caption="Job runs" rows={list.items} rowKey={(r) => r.id} columns={[...jobRunColumns, {
              header: <span className="q-visually-hidden">Actions</span>,
              cell: (r) => (r.status === 'failed'
                ? <Button onClick={() => void retry(r)} disabled={busy !== null} aria-label={`Retry run #${r.id} of ${r.name}`}>Retry</Button>
                : null),
            }]} />
            {list.more > 0 && <div className="q-show-more"><Button onClick={list.loadMore} disabled={list.isFetchingNextPage}>Show more ({list.more} left)</Button></div>}
          </>
        )}
    </>
  );
}
