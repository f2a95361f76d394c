// Superadmin → Orgs: every org with its server, officer role and publisher switch; add one for a server the bot is
// in; change its officer role (from the server's roles); remove it after typing its prefix.
import { useEffect, useState, type FormEvent } from 'react';
import { apiFetch } from '../../sdk/api.js';
import { invalidateApi, useApi } from '../../sdk/query.js';
import { Button } from '../../sdk/ui/button.js';
import { Card } from '../../sdk/ui/card.js';
import { ConfirmDialog } from '../../sdk/ui/dialog.js';
import { EmptyState } from '../../sdk/ui/empty-state.js';
import { Field } from '../../sdk/ui/field.js';
import { Loading } from '../../sdk/ui/notes.js';
import { Table } from '../../sdk/ui/table.js';
import { AdminError, ORGS_PATH, useAdminOrgs, type AdminOrg } from './common.js';

interface Guild { id: string; name: string; org: string | null }
interface Role { id: string; name: string; position: number; officer: boolean }

const GUILDS_PATH = '/api/superadmin/guilds';

/** After an org is added, changed or removed: the lists here, the org switcher and every org's limits. */
const refreshOrgs = () => Promise.all([ORGS_PATH, GUILDS_PATH, '/api/auth/me', '/api/superadmin/limits'].map(invalidateApi));

export function OrgsTab() {
  const orgs = useAdminOrgs();
  const guilds = useApi<{ guilds: Guild[] }>(GUILDS_PATH);
  const [removing, setRemoving] = useState<AdminOrg | null>(null);
  const [failure, setFailure] = useState<{ prefix: string; error: unknown } | null>(null);
  if (orgs.isPending || guilds.isPending) return <Loading />;
  if (orgs.error || guilds.error) return <AdminError error={orgs.error ?? guilds.error} />;
  const serverName = new Map(guilds.data.guilds.map((g) => [g.id, g.name]));

  return (
    <>
      <Card title="Orgs">
        {orgs.data.orgs.length === 0 ? <EmptyState title="No orgs yet">Add the first one below.</EmptyState> : (
          <Table caption="Orgs" rowKey={(o) => o.id} rows={orgs.data.orgs} columns={[
            { header: 'Prefix', cell: (o) => <span className="q-code">{o.prefix}</span> },
            { header: 'Name', cell: 'name' },
            { header: 'Server', cell: (o) => (o.guild_id ? serverName.get(o.guild_id) ?? <span className="q-code">{o.guild_id}</span> : 'none') },
            { header: 'Officer role', cell: (o) => <OfficerRole org={o} /> },
            { header: 'Publisher', cell: (o) => <PublisherSwitch org={o} onFailure={(error) => setFailure({ prefix: o.prefix, error })} /> },
            { header: 'Remove', cell: (o) => <Button variant="danger" aria-label={`Remove ${o.prefix}`} onClick={() => { setFailure(null); setRemoving(o); }}>Remove</Button> },
          ]} />
        )}
        {failure && <AdminError title={`${failure.prefix} was not changed`} error={failure.error} />}
      </Card>
      <AddOrg guilds={guilds.data.guilds} refreshing={guilds.isFetching} onRefresh={() => void guilds.refetch()} />
      <RemoveOrg org={removing} onDone={() => setRemoving(null)} />
    </>
  );
}

/** The publisher switch shows the change at once; it goes back if the API refuses it. */
function PublisherSwitch({ org, onFailure }: { org: AdminOrg; onFailure: (error: unknown) => void }) {
  const [on, setOn] = useState(org.publisher);
  useEffect(() => setOn(org.publisher), [org.publisher]);
  const turn = async (publisher: boolean) => {
    setOn(publisher);
    try {
      await apiFetch(`/api/superadmin/publishers/${org.id}`, { method: 'PUT', body: { publisher } });
      await invalidateApi(ORGS_PATH);
    } catch (error) {
      setOn(!publisher);
      onFailure(error);
    }
  };
  return (
    <label className="q-switch">
      <input type="checkbox" role="switch" checked={on} aria-label={`${org.prefix} publishes shared content`} onChange={(e) => void turn(e.target.checked)} />
      {on ? 'Yes' : 'No'}
    </label>
  );
}

function OfficerRole({ org }: { org: AdminOrg }) {
  const [editing, setEditing] = useState(false);
  // The server's roles name the officer role (and are the choices when changing it).
  const roles = useApi<{ roles: Role[] }>(org.guild_id ? `/api/superadmin/orgs/${org.prefix}/roles` : null);
  const [choice, setChoice] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const current = roles.data?.roles.find((r) => r.officer);

  if (!editing) {
    return (
      <span className="q-inline-form q-inline-center">
        {org.officer_role_id === null ? <span>none</span>
          : current ? <span>{current.name}</span> : <span className="q-code" title="not a role of the server now">{org.officer_role_id}</span>}
        <Button onClick={() => { setChoice(null); setFailure(null); setEditing(true); }} aria-label={`Change the officer role of ${org.prefix}`} disabled={!org.guild_id}>Change</Button>
      </span>
    );
  }
  if (roles.isPending) return <Loading label="Loading roles…" />;
  if (roles.error) return <AdminError error={roles.error} />;

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const roleId = choice ?? current?.id ?? '';
    setSaving(true);
    setFailure(null);
    try {
      await apiFetch(`/api/superadmin/orgs/${org.prefix}/officer-role`, { method: 'PUT', body: { role_id: roleId === '' ? null : roleId } });
      await refreshOrgs();
      setEditing(false);
    } catch (error) {
      setFailure(error);
    } finally {
      setSaving(false);
    }
  };
  return (
    <form className="q-inline-form" onSubmit={(e) => void save(e)}>
      <Field as="select" label={`Officer role of ${org.prefix}`} value={choice ?? current?.id ?? ''} onChange={(e) => setChoice(e.target.value)}>
        <option value="">No officer role (only the superadmin)</option>
        {roles.data.roles.map((r) => <option key={r.id} value={r.id}>{r.name}</option>)}
      </Field>
      <Button type="submit" variant="primary" disabled={saving}>Save</Button>
      <Button onClick={() => setEditing(false)}>Cancel</Button>
      {failure !== null && <AdminError title="Not changed" error={failure} />}
    </form>
  );
}

function AddOrg({ guilds, refreshing, onRefresh }: { guilds: Guild[]; refreshing: boolean; onRefresh: () => void }) {
  const free = guilds.filter((g) => g.org === null);
  const [draft, setDraft] = useState({ prefix: '', name: '', guild_id: '', description: '' });
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [added, setAdded] = useState<string | null>(null);
  const prefixProblem = draft.prefix === '' || /^[a-z][a-z0-9-]{1,31}$/.test(draft.prefix) ? null
    : '2 to 32 lower-case letters, digits and -, starting with a letter';
  const ready = draft.prefix !== '' && !prefixProblem && draft.name.trim() !== '' && draft.guild_id !== '';
  const set = (patch: Partial<typeof draft>) => { setAdded(null); setDraft({ ...draft, ...patch }); };

  const add = async (e: FormEvent) => {
    e.preventDefault();
    if (!ready) return;
    setSaving(true);
    setFailure(null);
    try {
      const org = await apiFetch<AdminOrg>(ORGS_PATH, {
        method: 'POST',
        body: { prefix: draft.prefix, name: draft.name.trim(), guild_id: draft.guild_id, ...(draft.description.trim() && { description: draft.description.trim() }) },
      });
      setDraft({ prefix: '', name: '', guild_id: '', description: '' });
      setAdded(org.prefix);
      await refreshOrgs();
    } catch (error) {
      setFailure(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card title="Add an org">
      <form className="q-form" onSubmit={(e) => void add(e)} noValidate>
        <Field label="Prefix" value={draft.prefix} onChange={(e) => set({ prefix: e.target.value.trim().toLowerCase() })} error={prefixProblem}
          hint="Its short name in addresses (/api/…/<prefix>); it cannot change later." maxLength={32} spellCheck={false} />
        <Field label="Name" value={draft.name} onChange={(e) => set({ name: e.target.value })} maxLength={100} />
        <Field as="select" label="Discord server" value={draft.guild_id} onChange={(e) => set({ guild_id: e.target.value })}
          hint={free.length === 0 ? 'The bot is in no server without an org: invite it to the server first.' : 'Servers the bot is in that have no org yet.'}>
          <option value="">Choose a server…</option>
          {free.map((g) => <option key={g.id} value={g.id}>{g.name}</option>)}
        </Field>
        {/* The bot may have joined a server since the list was read. */}
        <Button onClick={onRefresh} disabled={refreshing}>{refreshing ? 'Refreshing servers…' : 'Refresh servers'}</Button>
        <Field as="textarea" label="Description (optional)" value={draft.description} onChange={(e) => set({ description: e.target.value })} maxLength={2000} rows={2} />
        <p className="q-hint">Choose its officer role in the list once it is added: until then only the superadmin can open it.</p>
        {failure !== null && <AdminError title="Not added" error={failure} />}
        <div className="q-form-actions">
          <Button type="submit" variant="primary" disabled={saving || !ready}>Add org</Button>
          {added && <span className="q-saved" role="status">Added {added}</span>}
        </div>
      </form>
    </Card>
  );
}

function RemoveOrg({ org, onDone }: { org: AdminOrg | null; onDone: () => void }) {
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const close = () => { setTyped(''); setFailure(null); onDone(); };
  const remove = async () => {
    if (!org || typed !== org.prefix) return;
    setBusy(true);
    setFailure(null);
    try {
      await apiFetch(`/api/superadmin/orgs/${org.id}`, { method: 'DELETE' });
      await refreshOrgs();
      close();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <ConfirmDialog open={org !== null} title={`Remove ${org?.name ?? ''}?`} confirmLabel="Remove org" danger busy={busy || typed !== org?.prefix}
      onConfirm={() => void remove()} onCancel={close}>
      <p>This deletes the org <strong>{org?.prefix}</strong> and all its data: members, points, settings, secrets, logs. It cannot be undone.</p>
      <Field label={`Type ${org?.prefix ?? ''} to confirm`} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} />
      {failure !== null && <AdminError title="Not removed" error={failure} />}
    </ConfirmDialog>
  );
}
