// Explore → Integrations (spec "Dashboard client rules"): a connect form per outside service the modules declare
// (GET /api/dashboard/<org>/integrations). Readable fields (a base URL, a model) show their value; secret fields are
// write-only password inputs that only say whether they are set. Save sends what changed in one request (PUT …/<key>,
// an emptied readable field or a removed optional one is null); Clear asks first (DELETE …/<key>); Test runs the
// service's connection test and shows its message. Each card says whether the service is connected and which modules
// need it. A save changes what Explore's Modules tab (needs), Tokens and Settings → Secrets show: those are refetched.
import { useId, useState, type FormEvent } from 'react';
import { apiFetch, ApiError } from '../sdk/api.js';
import { useOrg } from '../sdk/org.js';
import { apiKey, invalidateApi, queryClient, useApi } from '../sdk/query.js';
import { Button } from '../sdk/ui/button.js';
import { Card } from '../sdk/ui/card.js';
import { ConfirmDialog } from '../sdk/ui/dialog.js';
import { EmptyState } from '../sdk/ui/empty-state.js';
import { Field } from '../sdk/ui/field.js';
import { ErrorNote, Loading } from '../sdk/ui/notes.js';
import { listingPath } from '../shell/listing.js';
import { tokensPath } from './integrations-table.js';

export interface IntegrationField { name: string; label: string; optional: boolean; readable: boolean; set: boolean; value?: string }
export interface IntegrationView {
  key: string; title: string; description: string; module: string; connected: boolean; remote: boolean; testable: boolean;
  fields: IntegrationField[]; used_by: string[];
}
interface TestAnswer { ok: boolean; message: string }

/** The org's integrations, with their fields. */
export const integrationsPath = (org: string) => `/api/dashboard/${org}/integrations`;
const MAX_VALUE = 8192;

/** What else shows which fields are set: Explore's Modules tab (needs), Tokens, Settings → Secrets. */
const othersChanged = (org: string) =>
  Promise.all([invalidateApi(listingPath(org)), invalidateApi(tokensPath(org)), invalidateApi(`/api/dashboard/${org}/secrets`)]);

/** Put one integration's new view into the cached listing. */
function replaceView(org: string, view: IntegrationView) {
  queryClient.setQueryData<{ integrations: IntegrationView[] }>(apiKey(integrationsPath(org)), (old) =>
    old && { integrations: old.integrations.map((i) => (i.key === view.key ? view : i)) });
}

export function IntegrationsTab() {
  const org = useOrg();
  const answer = useApi<{ integrations: IntegrationView[] }>(integrationsPath(org.prefix));
  const [clearing, setClearing] = useState<IntegrationView | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ key: string; error: unknown } | null>(null);
  /** Bumped per integration at each clear, so its form starts again from nothing. */
  const [generation, setGeneration] = useState<Record<string, number>>({});
  if (answer.isPending) return <Loading />;
  if (answer.error) return <ErrorNote error={answer.error} />;
  const { integrations } = answer.data;
  if (integrations.length === 0) {
    return <EmptyState title="No integrations">No module this service runs works with an outside service.</EmptyState>;
  }

  const clear = async (integration: IntegrationView) => {
    setBusy(true);
    setFailure(null);
    try {
      replaceView(org.prefix, await apiFetch<IntegrationView>(`${integrationsPath(org.prefix)}/${integration.key}`, { method: 'DELETE' }));
      setGeneration((g) => ({ ...g, [integration.key]: (g[integration.key] ?? 0) + 1 }));
      await othersChanged(org.prefix);
    } catch (error) {
      setFailure({ key: integration.key, error });
    } finally {
      setBusy(false);
      setClearing(null);
    }
  };

  return (
    <>
      <p className="q-hint">
        The outside services {org.name}'s modules work with. Connect one by filling in its fields: addresses and model
        names are shown again, keys and tokens are stored encrypted and never shown again (type a new one to replace it).
        Modules that need a service can be added once it is connected.
      </p>
      {integrations.map((i) => (
        <IntegrationCard key={`${i.key}:${generation[i.key] ?? 0}`} integration={i} prefix={org.prefix}
          clearFailure={failure?.key === i.key ? failure.error : null}
          onClear={() => { setFailure(null); setClearing(i); }} />
      ))}
      <ConfirmDialog open={clearing !== null} title={`Clear ${clearing?.title ?? ''}?`} confirmLabel="Clear" danger busy={busy}
        onConfirm={() => clearing && void clear(clearing)} onCancel={() => setClearing(null)}>
        <p>Every field of {clearing?.title} is deleted for {org.name} and cannot be shown or recovered; what uses the service stops until it is connected again.</p>
      </ConfirmDialog>
    </>
  );
}

function IntegrationCard({ integration: i, prefix, clearFailure, onClear }: {
  integration: IntegrationView; prefix: string; clearFailure: unknown; onClear: () => void;
}) {
  // A field's draft: a string typed, or null to clear it; absent: unchanged.
  const [draft, setDraft] = useState<Record<string, string | null>>({});
  const [saving, setSaving] = useState(false);
  const [saveFailure, setSaveFailure] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [testing, setTesting] = useState(false);
  const [result, setResult] = useState<TestAnswer | { error: unknown } | null>(null);
  const usedId = useId();

  /** The body of a save: what differs from the stored fields. */
  const changes: Record<string, string | null> = {};
  for (const f of i.fields) {
    const d = draft[f.name];
    if (d === undefined) continue;
    if (d === null) { if (f.set) changes[f.name] = null; continue; }
    const value = d.trim();
    if (f.readable) {
      if (value && value !== f.value) changes[f.name] = value;
      else if (!value && f.set) changes[f.name] = null;
    } else if (value) {
      changes[f.name] = value;
    }
  }
  const dirty = Object.keys(changes).length > 0;

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!dirty) return;
    setSaving(true);
    setSaveFailure(null);
    setResult(null);
    try {
      replaceView(prefix, await apiFetch<IntegrationView>(`${integrationsPath(prefix)}/${i.key}`, { method: 'PUT', body: { fields: changes } }));
      setDraft({});
      setSaved(true);
      await othersChanged(prefix);
    } catch (error) {
      setSaveFailure(error);
    } finally {
      setSaving(false);
    }
  };

  const test = async () => {
    setTesting(true);
    setResult(null);
    try {
      setResult(await apiFetch<TestAnswer>(`${integrationsPath(prefix)}/${i.key}/test`, { method: 'POST' }));
    } catch (error) {
      setResult({ error });
      // 409: the fields changed elsewhere; show what is stored now.
      if (error instanceof ApiError && error.status === 409) void invalidateApi(integrationsPath(prefix));
    } finally {
      setTesting(false);
    }
  };

  const anySet = i.fields.some((f) => f.set);
  const title = (
    <>{i.title}<span className={i.connected ? 'q-badge q-badge-on' : 'q-badge'}>{i.connected ? 'Connected' : 'Not connected'}</span></>
  );
  return (
    <Card title={title} className="q-integration">
      <p className="q-module-description">{i.description}</p>
      <p id={usedId} className="q-hint">
        {i.used_by.length ? `Needed by ${i.used_by.join(', ')}` : 'No module needs it to be added'}; declared by {i.module}
        {i.remote ? '; its tools come from its own MCP server' : ''}.
      </p>
      <form className="q-integration-form" aria-label={`Connect ${i.title}`} onSubmit={(e) => void save(e)}>
        {i.fields.map((f) => {
          const d = draft[f.name];
          const label = `${f.label}${f.optional ? ' (optional)' : ''}`;
          const set = (value: string | null) => { setSaved(false); setSaveFailure(null); setDraft((old) => ({ ...old, [f.name]: value })); };
          if (f.readable) {
            return (
              <Field key={f.name} label={label} value={d === undefined ? f.value ?? '' : d ?? ''} maxLength={MAX_VALUE} spellCheck={false}
                autoComplete="off" onChange={(e) => set(e.target.value)} hint={f.set ? undefined : 'Not set'} />
            );
          }
          return (
            <div key={f.name} className="q-integration-secret">
              <Field label={label} type="password" autoComplete="new-password" spellCheck={false} maxLength={MAX_VALUE}
                value={typeof d === 'string' ? d : ''} onChange={(e) => set(e.target.value)}
                placeholder={f.set && d !== null ? 'Set: type a new value to replace it' : ''}
                hint={d === null ? 'Removed when you save' : f.set ? 'Set (write-only: never shown again)' : 'Not set'} />
              {f.optional && f.set && d !== null && <Button onClick={() => set(null)} aria-label={`Remove ${f.label} of ${i.title}`}>Remove</Button>}
            </div>
          );
        })}
        <div className="q-form-actions">
          <Button type="submit" variant="primary" disabled={saving || !dirty} aria-label={`Save ${i.title}`}>Save</Button>
          {i.testable && (
            <Button onClick={() => void test()} disabled={testing || !i.connected || dirty} aria-label={`Test ${i.title}`}
              title={!i.connected ? 'Connect it first' : dirty ? 'Save first' : undefined}>{testing ? 'Testing…' : 'Test'}</Button>
          )}
          {anySet && <Button variant="danger" onClick={onClear} aria-label={`Clear ${i.title}`}>Clear</Button>}
          {saved && <span className="q-saved" role="status">Saved</span>}
        </div>
      </form>
      {saveFailure !== null && <ErrorNote title="Not saved" error={saveFailure} />}
      {clearFailure !== null && <ErrorNote title="Not cleared" error={clearFailure} />}
      {result && ('error' in result
        ? <ErrorNote title="Not tested" error={result.error} />
        : result.ok
          ? <div className="q-note q-note-ok" role="status" aria-label={`Test of ${i.title}`}><strong>Test passed.</strong> {result.message}</div>
          : <div className="q-note q-note-error" role="alert" aria-label={`Test of ${i.title}`}><strong>Test failed.</strong> {result.message}</div>)}
    </Card>
  );
}
