// Settings → Secrets: every secret the org's modules declare, grouped by the integration it connects, set or not.
// Values are write-only: typed into a password field, sent once (PUT /api/dashboard/<org>/secrets/<name>), and the
// field is emptied; the API never answers one. Deleting asks first.
import { useId, useState, type FormEvent } from 'react';
import { apiFetch } from '../../sdk/api.js';
import { useOrg } from '../../sdk/org.js';
import { invalidateApi, useApi } from '../../sdk/query.js';
import { Button } from '../../sdk/ui/button.js';
import { Card } from '../../sdk/ui/card.js';
import { ConfirmDialog } from '../../sdk/ui/dialog.js';
import { EmptyState } from '../../sdk/ui/empty-state.js';
import { Field } from '../../sdk/ui/field.js';
import { ErrorNote, Loading } from '../../sdk/ui/notes.js';
import { listingPath } from '../../shell/listing.js';
import { integrationsPath } from '../explore-integrations.js';
import { tokensPath } from '../integrations-table.js';

interface SecretView { name: string; label: string; module: string; integration: string | null; write_only: boolean; set: boolean; updated_at: string | null }
interface IntegrationView {
  key: string; title: string; description: string; module: string; connected: boolean;
  secrets: { name: string; label: string; optional: boolean; set: boolean }[];
}
interface SecretsAnswer { secrets: SecretView[]; integrations: IntegrationView[] }

const secretsPath = (org: string) => `/api/dashboard/${org}/secrets`;
const MAX_SECRET = 8192;

/** Which secrets are set decides Explore's readiness and which integrations are connected (Explore, Tokens, Integrations). */
const secretsChanged = (org: string) =>
  Promise.all([invalidateApi(secretsPath(org)), invalidateApi(listingPath(org)), invalidateApi(tokensPath(org)), invalidateApi(integrationsPath(org))]);

export function SecretsTab() {
  const org = useOrg();
  const answer = useApi<SecretsAnswer>(secretsPath(org.prefix));
  const [deleting, setDeleting] = useState<SecretView | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ name: string; error: unknown } | null>(null);
  if (answer.isPending) return <Loading />;
  if (answer.error) return <ErrorNote error={answer.error} />;
  const { secrets, integrations } = answer.data;
  if (secrets.length === 0) return <EmptyState title="No secrets to set">No module this service runs declares a secret.</EmptyState>;

  const remove = async (secret: SecretView) => {
    setBusy(true);
    setFailure(null);
    try {
      await apiFetch(`${secretsPath(org.prefix)}/${encodeURIComponent(secret.name)}`, { method: 'DELETE' });
      await secretsChanged(org.prefix);
    } catch (error) {
      setFailure({ name: secret.name, error });
    } finally {
      setBusy(false);
      setDeleting(null);
    }
  };

  const row = (s: SecretView) => (
    <SecretRow key={s.name} prefix={org.prefix} secret={s} onDelete={() => setDeleting(s)}
      failure={failure?.name === s.name ? failure.error : null} />
  );
  const others = secrets.filter((s) => s.integration === null);
  return (
    <>
      <p className="q-hint">Values are stored encrypted and never shown again, here or anywhere else: to change one, set it anew.</p>
      {integrations.map((i) => (
        <Card key={i.key} title={<>{i.title}<span className={i.connected ? 'q-badge q-badge-on' : 'q-badge'}>{i.connected ? 'Connected' : 'Not connected'}</span></>}>
          <p className="q-module-description">{i.description}</p>
          {secrets.filter((s) => s.integration === i.key).map(row)}
        </Card>
      ))}
      {others.length > 0 && <Card title="Module secrets">{others.map(row)}</Card>}
      <ConfirmDialog open={deleting !== null} title={`Delete ${deleting?.label ?? ''}?`} confirmLabel="Delete" danger busy={busy}
        onConfirm={() => deleting && void remove(deleting)} onCancel={() => setDeleting(null)}>
        <p>The stored value of <code className="q-code">{deleting?.name}</code> is deleted and cannot be shown or recovered; what uses it stops working until it is set again.</p>
      </ConfirmDialog>
    </>
  );
}

function SecretRow({ prefix, secret, onDelete, failure }: { prefix: string; secret: SecretView; onDelete: () => void; failure: unknown }) {
  const [value, setValue] = useState('');
  const [saving, setSaving] = useState(false);
  const [saveFailure, setSaveFailure] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const statusId = useId();

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!value.trim()) return;
    setSaving(true);
    setSaveFailure(null);
    try {
      await apiFetch(`${secretsPath(prefix)}/${encodeURIComponent(secret.name)}`, { method: 'PUT', body: { value } });
      setValue('');
      setSaved(true);
      await secretsChanged(prefix);
    } catch (error) {
      setSaveFailure(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="q-secret-row" aria-label={secret.label} role="group">
      <div>
        <strong>{secret.label}</strong> <span className="q-code">{secret.name}</span>
        <p id={statusId} className="q-hint" data-testid={`secret-status-${secret.name}`}>
          {secret.set ? `Set${secret.updated_at ? ` ${new Date(secret.updated_at).toLocaleString()}` : ''}` : 'Not set'}
        </p>
        {failure !== null && <ErrorNote title="Not deleted" error={failure} />}
        {saveFailure !== null && <ErrorNote title="Not saved" error={saveFailure} />}
      </div>
      <form className="q-inline-form" onSubmit={(e) => void save(e)}>
        <Field label={secret.set ? `New value for ${secret.label}` : `Value for ${secret.label}`} type="password" autoComplete="off" spellCheck={false}
          value={value} maxLength={MAX_SECRET} onChange={(e) => { setSaved(false); setValue(e.target.value); }} aria-describedby={statusId} />
        <Button type="submit" variant="primary" disabled={saving || !value.trim()} aria-label={`Save ${secret.label}`}>{secret.set ? 'Replace' : 'Set'}</Button>
        {secret.set && <Button variant="danger" onClick={onDelete} aria-label={`Delete ${secret.label}`}>Delete</Button>}
        {saved && <span className="q-saved" role="status">Saved</span>}
      </form>
    </div>
  );
}
