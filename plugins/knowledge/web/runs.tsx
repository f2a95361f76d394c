// The run log (GET /runs): one row per crawl and uploaded file, newest first. 50 rows, then 50 more each Show more up
// to the 500 the service keeps (spec: knowledge runs show 50); Failed only asks for failed=1. The Knowledge page's
// Runs tab and Activity → Knowledge runs (manifest pages.activityTabs) both render KnowledgeRunsTab, without props.
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, EmptyState, ErrorNote, Loading, Table, apiFetch, apiKey, invalidateApi, type ApiError } from '@quad/web/sdk';
import { bad, plural, row, useKnowledgeBase, when, type Run } from './common.js';

const STEP = 50;
/** runs.ts RUNS_KEPT: the route's largest limit. */
const KEPT = 500;

const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

export function KnowledgeRunsTab() {
  const base = useKnowledgeBase();
  const [limit, setLimit] = useState(STEP);
  const [failed, setFailed] = useState(false);
  const path = `${base}/runs?limit=${limit}${failed ? '&failed=1' : ''}`;
  // The rows shown stay while a longer page loads (Show more), instead of a loading line in their place.
  const list = useQuery<{ runs: Run[] }, ApiError>({
    queryKey: apiKey(path), queryFn: ({ signal }) => apiFetch(path, { signal }), placeholderData: keepPreviousData,
  });
  const runs = list.data?.runs ?? [];
  const more = runs.length === limit && limit < KEPT;
  const loadingMore = list.isPlaceholderData && list.isFetching;

  return (
    <section aria-label="Knowledge runs">
      <div style={{ ...row, alignItems: 'center', marginBottom: 8 }}>
        <label className="q-switch">
          <input type="checkbox" checked={failed} onChange={(e) => { setFailed(e.target.checked); setLimit(STEP); }} /> Failed only
        </label>
        <Button onClick={() => void invalidateApi(`${base}/runs`)} disabled={list.isFetching}>Refresh</Button>
      </div>
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} title="Runs not loaded" />
        : runs.length === 0 ? <EmptyState title={failed ? 'No failed runs' : 'No runs yet'}>Each crawl and uploaded file is a row here, the last {KEPT} kept.</EmptyState>
          : (
            <>
              <p className="q-hint">The newest {plural(runs.length, failed ? 'failed run' : 'run')}.</p>
              <Table caption="Knowledge runs" rows={runs} rowKey={(r) => r.id} columns={[
                { header: 'When', cell: (r) => when(r.started_at) },
                { header: 'Source', cell: (r) => <code>{r.source_key}</code> },
                { header: 'Kind', cell: (r) => (r.kind === 'crawl' ? 'Crawl' : 'Upload') },
                { header: 'Duration', numeric: true, cell: (r) => duration(r.duration_ms) },
                { header: 'Changed', cell: (r) => (r.changed ? 'Yes' : 'No') },
                { header: 'Passages', numeric: true, cell: 'passages' },
                { header: 'Error', cell: (r) => (r.error ? <span style={bad}>{r.error}</span> : '') },
              ]} />
              {more && (
                <div className="q-show-more">
                  <Button onClick={() => setLimit((l) => Math.min(KEPT, l + STEP))} disabled={loadingMore}>{loadingMore ? 'Loading…' : 'Show more'}</Button>
                </div>
              )}
            </>
          )}
    </section>
  );
}
