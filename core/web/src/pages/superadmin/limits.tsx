// Superadmin → Limits: every org's limits with its use and overrides, orgs and limits at 80 % or more marked. An
// override is a whole number, empty for "no limit" (null), or "default" to remove it (PUT /api/superadmin/limits/<org_id>).
import { useEffect, useId, useState, type FormEvent } from 'react';
import { apiFetch } from '../../sdk/api.js';
import { invalidateApi, useApi } from '../../sdk/query.js';
import { Button } from '../../sdk/ui/button.js';
import { Card } from '../../sdk/ui/card.js';
import { EmptyState } from '../../sdk/ui/empty-state.js';
import { Loading } from '../../sdk/ui/notes.js';
import { Table } from '../../sdk/ui/table.js';
import { UsageBar } from '../../sdk/ui/usage-bar.js';
import type { LimitEntry } from '../settings/limits.js';
import { AdminError } from './common.js';

interface OrgLimits { id: number; prefix: string; name: string; near_limit: boolean; overrides: Record<string, number | null>; limits: LimitEntry[] }

const LIMITS_PATH = '/api/superadmin/limits';
const MAX = 2_147_483_647;

/** The override as typed: "" is no limit, "default" removes it; else a whole number. */
function overrideOf(text: string): number | null | 'default' | undefined {
  const t = text.trim();
  if (t === '') return null;
  if (t.toLowerCase() === 'default') return 'default';
  if (!/^\d+$/.test(t) || Number(t) > MAX) return undefined;
  return Number(t);
}

const shownOverride = (overrides: Record<string, number | null>, key: string) =>
  !(key in overrides) ? 'default' : overrides[key] === null ? '' : String(overrides[key]);

export function OverridesTab() {
  const answer = useApi<{ orgs: OrgLimits[] }>(LIMITS_PATH);
  const [nearOnly, setNearOnly] = useState(false);
  if (answer.isPending) return <Loading />;
  if (answer.error) return <AdminError error={answer.error} />;
  const orgs = answer.data.orgs.filter((o) => !nearOnly || o.near_limit);
  return (
    <>
      <p className="q-hint">
        An override replaces the service's value for one org: a whole number, empty for no limit, or <span className="q-code">default</span> to
        go back to the service's value. Orgs and limits at 80 % of their value or more are marked.
      </p>
      <label className="q-switch"><input type="checkbox" checked={nearOnly} onChange={(e) => setNearOnly(e.target.checked)} /> Only orgs near a limit</label>
      {orgs.length === 0 && <EmptyState title={nearOnly ? 'No org is near a limit' : 'No orgs'} />}
      {orgs.map((org) => (
        <Card key={org.id} title={<>{org.name} <span className="q-code">{org.prefix}</span>{org.near_limit && <span className="q-badge q-badge-near">Near a limit</span>}</>}>
          {org.limits.length === 0 ? <p className="q-hint">None of its modules that are on has a limit.</p> : (
            <Table caption={`Limits of ${org.prefix}`} rowKey={(l) => l.key} rows={org.limits} columns={[
              { header: 'Limit', cell: (l) => <><div className="q-code">{l.key}</div><div className="q-hint">{l.kind === 'rate' ? `per ${l.window}` : 'kept'} · {l.paid_by}</div></> },
              { header: 'Use / limit', cell: (l) => <UsageBar label={`${org.prefix} ${l.key} use`} use={l.use} value={l.value} near={l.near_limit} /> },
              { header: 'Default', cell: (l) => (l.default === null ? 'no limit' : l.default.toLocaleString()), numeric: true },
              { header: 'Override', cell: (l) => <OverrideEditor org={org} limit={l} /> },
            ]} />
          )}
        </Card>
      ))}
    </>
  );
}

function OverrideEditor({ org, limit }: { org: OrgLimits; limit: LimitEntry }) {
  const saved = shownOverride(org.overrides, limit.key);
  const [text, setText] = useState(saved);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const errorId = useId();
  useEffect(() => setText(saved), [saved]);
  const value = overrideOf(text);
  const problem = value === undefined ? 'A whole number, empty (no limit) or default' : null;

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (value === undefined) return;
    setBusy(true);
    setFailure(null);
    try {
      await apiFetch(`${LIMITS_PATH}/${org.id}`, { method: 'PUT', body: { [limit.key]: value } });
      await Promise.all([invalidateApi(LIMITS_PATH), invalidateApi(`/api/organizations/${org.prefix}/limits`), invalidateApi(`/api/organizations/${org.id}/limits`)]);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="q-inline-form" onSubmit={(e) => void save(e)} noValidate>
      {/* The column header names the field for the eye; the label names it for a screen reader. */}
      <input className="q-control" aria-label={`Override of ${limit.key} for ${org.prefix}`} value={text} onChange={(e) => setText(e.target.value)}
        placeholder="no limit" spellCheck={false} size={10} aria-invalid={problem ? true : undefined} aria-describedby={problem ? errorId : undefined} />
      <Button type="submit" disabled={busy || problem !== null || text === saved} aria-label={`Save the override of ${limit.key} for ${org.prefix}`}>Save</Button>
      {problem && <p id={errorId} className="q-error" role="alert">{problem}</p>}
      {failure !== null && <AdminError title="Not saved" error={failure} />}
    </form>
  );
}
