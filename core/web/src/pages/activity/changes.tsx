// Activity → Changes: the org's audit log, filtered by action (or its prefix) and actor. 100 rows, then more.
import { useState } from 'react';
import { useOrg } from '../../sdk/org.js';
import { usePagedApi } from '../../sdk/paged.js';
import { Button } from '../../sdk/ui/button.js';
import { EmptyState } from '../../sdk/ui/empty-state.js';
import { ErrorNote, Loading } from '../../sdk/ui/notes.js';
import { Table } from '../../sdk/ui/table.js';
import { Filters } from './filters.js';
import { When, plural, queryOf } from './format.js';

export interface ChangeItem { id: number; actor: string; action: string; details: Record<string, unknown>; created_at: string }

export const changeColumns = [
  { header: 'When', cell: (c: ChangeItem) => <When at={c.created_at} /> },
  { header: 'Action', cell: (c: ChangeItem) => <span className="q-code">{c.action}</span> },
  { header: 'By', cell: (c: ChangeItem) => <span className="q-code">{c.actor}</span> },
  { header: 'Details', cell: (c: ChangeItem) => (Object.keys(c.details).length ? <span className="q-code">{JSON.stringify(c.details)}</span> : '') },
];

export function ChangesTab() {
  const org = useOrg();
  const [filters, setFilters] = useState<Record<string, string>>({});
  const list = usePagedApi<ChangeItem>(`/api/dashboard/${org.prefix}/changes${queryOf(filters)}`);
  return (
    <>
      <Filters label="Filter changes" onApply={setFilters}
        text={[{ name: 'action', label: 'Action', hint: 'e.g. tokens, or org.branding' }, { name: 'actor', label: 'By', hint: 'exactly, e.g. officer:<chat id>' }]} />
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} /> : list.items.length === 0
        ? <EmptyState title="No changes">Nothing matches these filters.</EmptyState>
        : (
          <>
            <p className="q-hint">{plural(list.total, 'change')}</p>
            <Table caption="Changes" columns={changeColumns} rows={list.items} rowKey={(c) => c.id} />
            {list.more > 0 && <div className="q-show-more"><Button onClick={list.loadMore} disabled={list.isFetchingNextPage}>Show more ({list.more} left)</Button></div>}
          </>
        )}
    </>
  );
}
