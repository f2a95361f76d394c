// Superadmin → Audit and Errors: the logs of every org (or one), newest first, 100 rows and a Show more button
// that fetches the next page of the API (each page is its own cached query).
import { useState, type ReactNode } from 'react';
import { useApi } from '../../sdk/query.js';
import { Button } from '../../sdk/ui/button.js';
import { EmptyState } from '../../sdk/ui/empty-state.js';
import { Field } from '../../sdk/ui/field.js';
import { Loading } from '../../sdk/ui/notes.js';
import { Table, type Column } from '../../sdk/ui/table.js';
import { AdminError, useAdminOrgs } from './common.js';

const PER_PAGE = 100;

interface LogPage<T> { items: T[]; page: number; per_page: number; total: number }
interface AuditRow { id: number; org_id: number | null; actor: string; action: string; details: Record<string, unknown>; created_at: string }
interface ErrorRow {
  id: number; org_id: number | null; source: string; origin: string; request_id: string | null; message: string; log_line: string;
  host: string; release: string; stack: string | null; created_at: string;
}

const when = (iso: string) => new Date(iso).toLocaleString();

export function AuditTab() {
  return <LogView<AuditRow> kind="audit" title="Audit log" columns={(org) => [
    { header: 'When', cell: (r) => when(r.created_at) },
    { header: 'Org', cell: (r) => org(r.org_id) },
    { header: 'Who', cell: (r) => <span className="q-code">{r.actor}</span> },
    { header: 'What', cell: (r) => <span className="q-code">{r.action}</span> },
    { header: 'Details', cell: (r) => <span className="q-code">{JSON.stringify(r.details)}</span> },
  ]} />;
}

export function ErrorsTab() {
  return <LogView<ErrorRow> kind="errors" title="Errors" columns={(org) => [
    { header: 'When', cell: (r) => when(r.created_at) },
    { header: 'Org', cell: (r) => org(r.org_id) },
    { header: 'Where', cell: (r) => <><div>{r.source}</div><div className="q-code q-hint">{r.origin}</div></> },
    {
      header: 'Error', cell: (r) => (
        <details>
          <summary>{r.message}</summary>
          <dl className="q-facts">
            <dt>Request</dt><dd className="q-code">{r.request_id ?? '–'}</dd>
            <dt>Host</dt><dd>{r.host}</dd>
            <dt>Release</dt><dd>{r.release}</dd>
            <dt>Log line</dt><dd className="q-code">{r.log_line}</dd>
          </dl>
          {r.stack && <pre className="q-code q-stack">{r.stack}</pre>}
        </details>
      ),
    },
  ]} />;
}

function LogView<T extends { id: number }>({ kind, title, columns }: {
  kind: 'audit' | 'errors'; title: string; columns: (org: (id: number | null) => ReactNode) => Column<T>[];
}) {
  const orgs = useAdminOrgs();
  const [org, setOrg] = useState('');
  const [pages, setPages] = useState(1);
  const prefixOf = new Map(orgs.data?.orgs.map((o) => [o.id, o.prefix]) ?? []);
  const orgCell = (id: number | null) => (id === null ? '–' : <span className="q-code">{prefixOf.get(id) ?? `#${id}`}</span>);
  return (
    <>
      <div className="q-inline-form">
        <Field as="select" label="Org" value={org} onChange={(e) => { setOrg(e.target.value); setPages(1); }}>
          <option value="">Every org</option>
          {orgs.data?.orgs.map((o) => <option key={o.id} value={o.prefix}>{o.prefix}</option>)}
        </Field>
      </div>
      {Array.from({ length: pages }, (_, i) => (
        <LogPageView<T> key={`${org}:${i}`} kind={kind} title={title} org={org} page={i + 1} last={i + 1 === pages}
          columns={columns(orgCell)} onMore={() => setPages(pages + 1)} />
      ))}
    </>
  );
}

function LogPageView<T extends { id: number }>({ kind, title, org, page, last, columns, onMore }: {
  kind: string; title: string; org: string; page: number; last: boolean; columns: Column<T>[]; onMore: () => void;
}) {
  const query = new URLSearchParams({ page: String(page), per_page: String(PER_PAGE), ...(org && { org }) });
  const answer = useApi<LogPage<T>>(`/api/superadmin/${kind}?${query}`);
  if (answer.isPending) return <Loading />;
  if (answer.error) return <AdminError error={answer.error} />;
  const { items, total } = answer.data;
  if (page === 1 && items.length === 0) return <EmptyState title={`Nothing in the ${title.toLowerCase()}`} />;
  const left = total - page * PER_PAGE;
  return (
    <>
      <Table caption={`${title}, page ${page}`} rows={items} rowKey={(r) => r.id} columns={columns} />
      {last && left > 0 && <div className="q-show-more"><Button onClick={onMore}>Show more ({left} left)</Button></div>}
    </>
  );
}
