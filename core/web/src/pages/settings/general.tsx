// Settings → General: the org's name, description and points settings (GET/PUT /api/dashboard/<org>/settings), and
// what only the superadmin changes (prefix, server, officer role, publisher), shown read-only.
import { useEffect, useState, type FormEvent } from 'react';
import { apiFetch } from '../../sdk/api.js';
import { useOrg } from '../../sdk/org.js';
import { apiKey, invalidateApi, queryClient, useApi } from '../../sdk/query.js';
import { Button } from '../../sdk/ui/button.js';
import { Card } from '../../sdk/ui/card.js';
import { Field } from '../../sdk/ui/field.js';
import { ErrorNote, Loading } from '../../sdk/ui/notes.js';

export interface OrgSettings {
  id: number; prefix: string; name: string; description: string; guild_id: string | null; officer_role_id: string | null;
  points_per_message: number; points_cooldown_seconds: number; publisher: boolean;
}

export const settingsPath = (org: string) => `/api/dashboard/${org}/settings`;

interface Draft { name: string; description: string; points_per_message: string; points_cooldown_seconds: string }

const draftOf = (s: OrgSettings): Draft => ({
  name: s.name, description: s.description,
  points_per_message: String(s.points_per_message), points_cooldown_seconds: String(s.points_cooldown_seconds),
});

/** A whole number from 0 to max, or the problem with it. */
function wholeNumber(text: string, max: number): number | string {
  if (!/^\d+$/.test(text.trim())) return 'A whole number';
  const n = Number(text.trim());
  return n > max ? `At most ${max.toLocaleString()}` : n;
}

export function GeneralTab() {
  const org = useOrg();
  const settings = useApi<OrgSettings>(settingsPath(org.prefix));
  if (settings.isPending) return <Loading />;
  if (settings.error) return <ErrorNote error={settings.error} />;
  return <GeneralForm key={org.prefix} settings={settings.data} />;
}

function GeneralForm({ settings }: { settings: OrgSettings }) {
  const [draft, setDraft] = useState(() => draftOf(settings));
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  // Another save (or a refetch) brought new values: show them.
  useEffect(() => setDraft(draftOf(settings)), [settings]);

  const points = wholeNumber(draft.points_per_message, 1000);
  const cooldown = wholeNumber(draft.points_cooldown_seconds, 86_400);
  const nameProblem = draft.name.trim() === '' ? 'The org needs a name' : null;
  const invalid = nameProblem !== null || typeof points === 'string' || typeof cooldown === 'string';
  const change = (field: keyof Draft) => (e: { target: { value: string } }) => { setSaved(false); setDraft({ ...draft, [field]: e.target.value }); };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (invalid) return;
    setSaving(true);
    setFailure(null);
    try {
      const next = await apiFetch<OrgSettings>(settingsPath(settings.prefix), {
        method: 'PUT',
        body: { name: draft.name.trim(), description: draft.description, points_per_message: points, points_cooldown_seconds: cooldown },
      });
      queryClient.setQueryData(apiKey(settingsPath(settings.prefix)), next);
      // The sidebar shows the org's name from /api/auth/me.
      void invalidateApi('/api/auth/me');
      setSaved(true);
    } catch (error) {
      setFailure(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <Card title="General">
        <form className="q-form" onSubmit={(e) => void save(e)} noValidate>
          <Field label="Name" value={draft.name} onChange={change('name')} maxLength={100} required error={nameProblem} />
          <Field as="textarea" label="Description" value={draft.description} onChange={change('description')} maxLength={2000} rows={3} />
          <Field label="Points per message" inputMode="numeric" value={draft.points_per_message} onChange={change('points_per_message')}
            hint="Points a member earns for a message on the server (0 to 1,000)." error={typeof points === 'string' ? points : null} />
          <Field label="Points cooldown (seconds)" inputMode="numeric" value={draft.points_cooldown_seconds} onChange={change('points_cooldown_seconds')}
            hint="How long after earning points a member earns none for messages (0 to 86,400)." error={typeof cooldown === 'string' ? cooldown : null} />
          {failure !== null && <ErrorNote title="Not saved" error={failure} />}
          <div className="q-form-actions">
            <Button type="submit" variant="primary" disabled={saving || invalid}>Save</Button>
            {saved && <span className="q-saved" role="status">Saved</span>}
          </div>
        </form>
      </Card>
      <Card title="Set by the superadmin">
        <dl className="q-facts">
          <dt>Prefix</dt><dd className="q-code">{settings.prefix}</dd>
          <dt>Org id</dt><dd>{settings.id}</dd>
          <dt>Discord server</dt><dd className="q-code">{settings.guild_id ?? 'none'}</dd>
          <dt>Officer role</dt><dd className="q-code">{settings.officer_role_id ?? 'none: only the superadmin can open this org'}</dd>
          <dt>Publisher</dt><dd>{settings.publisher ? 'Yes: may publish shared content' : 'No'}</dd>
        </dl>
      </Card>
    </>
  );
}
