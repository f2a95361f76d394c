// Settings → Branding: the accent color (primary buttons and the org initial), logo and website
// (GET/PUT /api/dashboard/<org>/branding). The answer of a save goes straight into the shell's branding query, so
// the accent changes at once everywhere.
import { useEffect, useState, type FormEvent } from 'react';
import { apiFetch } from '../../sdk/api.js';
import { useOrg, type Branding } from '../../sdk/org.js';
import { apiKey, queryClient, useApi } from '../../sdk/query.js';
import { Button } from '../../sdk/ui/button.js';
import { Card } from '../../sdk/ui/card.js';
import { Field } from '../../sdk/ui/field.js';
import { ErrorNote, Loading } from '../../sdk/ui/notes.js';
import { brandingPath, UNBRANDED } from '../../shell/branding.js';

const HEX = /^#[0-9A-Fa-f]{6}$/;

interface Draft { accent_color: string; logo_url: string; website_url: string }

const draftOf = (b: Branding): Draft => ({ accent_color: b.accent_color ?? '', logo_url: b.logo_url ?? '', website_url: b.website_url ?? '' });

/** Why a URL field will be refused, or null (the API checks again). */
function urlProblem(text: string): string | null {
  if (text.trim() === '') return null;
  try {
    const url = new URL(text.trim());
    if (url.protocol !== 'https:') return 'Must start with https://';
    if (url.username || url.password) return 'No user name or password in the address';
    return null;
  } catch {
    return 'Not a web address';
  }
}

export function BrandingTab() {
  const org = useOrg();
  const branding = useApi<Branding>(brandingPath(org.prefix));
  if (branding.isPending) return <Loading />;
  if (branding.error) return <ErrorNote error={branding.error} />;
  return <BrandingForm key={org.prefix} prefix={org.prefix} branding={branding.data} />;
}

function BrandingForm({ prefix, branding }: { prefix: string; branding: Branding }) {
  const [draft, setDraft] = useState(() => draftOf(branding));
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  useEffect(() => setDraft(draftOf(branding)), [branding]);

  const accentProblem = draft.accent_color === '' || HEX.test(draft.accent_color) ? null : 'A color as #RRGGBB, for example #1D4ED8';
  const logoProblem = urlProblem(draft.logo_url);
  const websiteProblem = urlProblem(draft.website_url);
  const invalid = Boolean(accentProblem || logoProblem || websiteProblem);
  const set = (patch: Partial<Draft>) => { setSaved(false); setDraft({ ...draft, ...patch }); };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (invalid) return;
    setSaving(true);
    setFailure(null);
    try {
      // Empty strings remove a value.
      const next = await apiFetch<Branding>(brandingPath(prefix), {
        method: 'PUT', body: { accent_color: draft.accent_color, logo_url: draft.logo_url.trim(), website_url: draft.website_url.trim() },
      });
      // The shell reads the same query: the accent of buttons and of the org initial changes now.
      queryClient.setQueryData(apiKey(brandingPath(prefix)), next);
      setSaved(true);
    } catch (error) {
      setFailure(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card title="Branding">
      <form className="q-form" onSubmit={(e) => void save(e)} noValidate>
        <div className="q-color-row">
          <Field label="Accent color picker" type="color" value={HEX.test(draft.accent_color) ? draft.accent_color.toLowerCase() : UNBRANDED.toLowerCase()}
            onChange={(e) => set({ accent_color: e.target.value.toUpperCase() })} />
          <Field label="Accent color" value={draft.accent_color} placeholder={`none (gray ${UNBRANDED})`} maxLength={7} spellCheck={false}
            onChange={(e) => set({ accent_color: e.target.value.trim() })} error={accentProblem}
            hint="Primary buttons and the org initial wear it. Empty: the dashboard's gray." />
          <Button onClick={() => set({ accent_color: '' })} disabled={draft.accent_color === ''}>Clear color</Button>
        </div>
        <Field label="Logo address" type="url" value={draft.logo_url} placeholder="https://…" onChange={(e) => set({ logo_url: e.target.value })}
          error={logoProblem} hint="An https address of an image. Empty: no logo." />
        {draft.logo_url && !logoProblem && <img src={draft.logo_url.trim()} alt="Logo preview" className="q-logo-preview" height={48} />}
        <Field label="Website" type="url" value={draft.website_url} placeholder="https://…" onChange={(e) => set({ website_url: e.target.value })}
          error={websiteProblem} hint="The org's own site, an https address." />
        {failure !== null && <ErrorNote title="Not saved" error={failure} />}
        <div className="q-form-actions">
          <Button type="submit" variant="primary" disabled={saving || invalid}>Save branding</Button>
          {saved && <span className="q-saved" role="status">Saved</span>}
        </div>
      </form>
    </Card>
  );
}
