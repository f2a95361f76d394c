// The Notifications and Errors lists: rows picked with checkboxes (or all shown at once), then resolved, reopened or
// deleted together through the bulk routes (`<list>/resolve|reopen|delete` with `{ ids }`). 100 rows, then more.
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { apiFetch } from '../../sdk/api.js';
import { invalidateApi } from '../../sdk/query.js';
import { usePagedApi, type PageAnswer } from '../../sdk/paged.js';
import { Button } from '../../sdk/ui/button.js';
import { ConfirmDialog } from '../../sdk/ui/dialog.js';
import { ErrorNote, Loading } from '../../sdk/ui/notes.js';
import { Table, type Column } from '../../sdk/ui/table.js';
import { plural } from './format.js';

interface Row { id: number; status: 'open' | 'resolved' }
type Action = 'resolve' | 'reopen' | 'delete';
const DONE: Record<Action, string> = { resolve: 'Resolved', reopen: 'Reopened', delete: 'Deleted' };

export function BulkList<T extends Row>({ base, query, noun, columns, rowLabel, deleteBlocked, invalidate = [], empty }: {
  /** The list route, e.g. `/api/dashboard/acm/notifications` (its bulk routes are under it). */
  base: string;
  /** The filters as a query string (`?status=open`), '' for none. */
  query: string;
  /** `notification`: for counts and labels. */
  noun: string;
  columns: Column<T>[];
  /** What a row's checkbox selects, for screen readers. */
  rowLabel: (row: T) => string;
  /** Why the selected rows cannot be deleted, or null when they can. */
  deleteBlocked?: (selected: T[]) => string | null;
  /** Other cached answers a change makes stale (the overview's counts). */
  invalidate?: string[];
  empty: ReactNode;
}) {
  const list = usePagedApi<T, PageAnswer<T>>(`${base}${query}`);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [confirming, setConfirming] = useState(false);
  const allBox = useRef<HTMLInputElement>(null);
  const blockedId = useId();

  // Other filters, other rows: a selection never carries over to rows the officer cannot see.
  useEffect(() => setSelected(new Set()), [base, query]);
  // Rows that left the list (deleted, or filtered out after a change) leave the selection.
  const shownIds = new Set(list.items.map((r) => r.id));
  const picked = list.items.filter((r) => selected.has(r.id));
  const all = list.items.length > 0 && picked.length === list.items.length;
  useEffect(() => {
    if (allBox.current) allBox.current.indeterminate = picked.length > 0 && !all;
  });

  const toggle = (id: number, on: boolean) => setSelected((s) => {
    const next = new Set([...s].filter((x) => shownIds.has(x)));
    if (on) next.add(id); else next.delete(id);
    return next;
  });
  const toggleAll = (on: boolean) => setSelected(on ? new Set(list.items.map((r) => r.id)) : new Set());

  const act = async (action: Action) => {
    setBusy(true);
    setDone(null);
    setFailure(null);
    try {
      const ids = picked.map((r) => r.id);
      const answer = await apiFetch<{ ids: number[]; count: number }>(`${base}/${action}`, { method: 'POST', body: { ids } });
      setDone(answer.count === 0
        ? `Nothing changed: the selected ${noun}s were already ${action === 'reopen' ? 'open' : 'resolved'}.`
        : `${DONE[action]} ${plural(answer.count, noun)}.`);
      setSelected(new Set());
      await Promise.all([invalidateApi(base), ...invalidate.map(invalidateApi)]);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };

  const blocked = picked.length > 0 ? deleteBlocked?.(picked) ?? null : null;
  const none = picked.length === 0;
  const selectColumn: Column<T> = {
    header: <input type="checkbox" className="q-check" ref={allBox} checked={all} disabled={list.items.length === 0}
      onChange={(e) => toggleAll(e.target.checked)} aria-label={`Select all shown ${noun}s`} />,
    cell: (row) => <input type="checkbox" className="q-check" checked={selected.has(row.id)}
      onChange={(e) => toggle(row.id, e.target.checked)} aria-label={`Select ${rowLabel(row)}`} />,
  };

  if (list.isPending) return <Loading />;
  if (list.error) return <ErrorNote error={list.error} />;
  return (
    <>
      <div className="q-toolbar" role="toolbar" aria-label={`Selected ${noun}s`}>
        <span className="q-toolbar-count" aria-live="polite">{none ? `${plural(list.total, noun)}` : `${picked.length} selected`}</span>
        <Button onClick={() => void act('resolve')} disabled={none || busy}>Resolve</Button>
        <Button onClick={() => void act('reopen')} disabled={none || busy}>Reopen</Button>
        <Button variant="danger" onClick={() => setConfirming(true)} disabled={none || busy || blocked !== null}
          aria-describedby={blocked ? blockedId : undefined}>Delete</Button>
        {blocked && <span id={blockedId} className="q-hint">{blocked}</span>}
      </div>
      {done && <p className="q-note q-note-ok" role="status">{done}</p>}
      {failure !== null && <ErrorNote title="The change was refused" error={failure} />}
      {list.items.length === 0 ? empty : (
        <>
          <Table caption={`${noun[0]!.toUpperCase()}${noun.slice(1)}s`} columns={[selectColumn, ...columns]} rows={list.items} rowKey={(r) => r.id} />
          {list.more > 0 && (
            <div className="q-show-more">
              <Button onClick={list.loadMore} disabled={list.isFetchingNextPage}>Show more ({list.more} left)</Button>
            </div>
          )}
        </>
      )}
      <ConfirmDialog open={confirming} title={`Delete ${plural(picked.length, noun)}?`} confirmLabel="Delete" danger busy={busy}
        onConfirm={() => void act('delete')} onCancel={() => setConfirming(false)}>
        <p>The selected {noun}s are deleted for good; this cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}

