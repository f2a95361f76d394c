// Create a pod (POST /pods) on the org's provider account: GPU or CPU with the create body's fields, who may use it,
// and its environment. The server checks the rules and asks the provider; its refusal is shown as it says it.
import { useState, type FormEvent } from 'react';
import { Button, Card, ErrorNote, Field, useApi, useApiMutation } from '@quad/web/sdk';
import { ok, row, usePodsBase, type Member, type Pod, type PodSettings } from './common.js';
import { CpuFields, GpuFields, KindChoice } from './hardware-fields.js';
import { MemberSearch } from './member-search.js';
import { CLOUD_TYPES, EMPTY_DRAFT, createBody, type PodDraft } from './pod-draft.js';

export function CreatePodCard() {
  const base = usePodsBase();
  const settings = useApi<PodSettings>(`${base}/settings`).data;
  const create = useApiMutation<Record<string, unknown>, Pod>('POST', `${base}/pods`, { invalidate: [`${base}/pods`] });
  const [draft, setDraft] = useState<PodDraft>(EMPTY_DRAFT);
  const [formError, setFormError] = useState<string | null>(null);
  const [made, setMade] = useState<Pod | null>(null);
  // A new pod starts a new form: the member search forgets its results too.
  const [round, setRound] = useState(0);
  const edit = (change: Partial<PodDraft>) => setDraft((d) => ({ ...d, ...change }));

  function submit(e: FormEvent) {
    e.preventDefault();
    setMade(null); setFormError(null);
    let body: Record<string, unknown>;
    try {
      body = createBody(draft);
    } catch (err) {
      return setFormError((err as Error).message);
    }
    create.mutate(body, { onSuccess: (pod) => { setMade(pod); setDraft(EMPTY_DRAFT); setRound((r) => r + 1); } });
  }

  const image = settings ? settings.pod_image ?? settings.default_image : 'the org\'s default';
  const imageHint = image === null ? 'Required: neither the org nor the deployment sets a default image' : <>Empty: <code>{image}</code></>;
  return (
    <Card title="Create a pod">
      <form onSubmit={submit} aria-label="Create a pod">
        <KindChoice kind={draft.kind} onChange={(kind) => edit({ kind })} />
        <div style={row}>
          <Field label="Name" value={draft.name} onChange={(e) => edit({ name: e.target.value })} maxLength={100} placeholder="training" hint="Default: <org>-pod" />
          <Field label="Image" value={draft.image_name} onChange={(e) => edit({ image_name: e.target.value })} maxLength={500} hint={imageHint} />
          <Field as="select" label="Cloud type" value={draft.cloud_type} onChange={(e) => edit({ cloud_type: e.target.value })}>
            {CLOUD_TYPES.map((c) => <option key={c} value={c}>{c || 'Any'}</option>)}
          </Field>
          <Field label="Container disk (GB)" type="number" min={1} max={10000} step={1} value={draft.container_disk_in_gb}
            onChange={(e) => edit({ container_disk_in_gb: e.target.value })} hint="Empty: the provider's default" />
        </div>
        {draft.kind === 'gpu' ? <GpuFields draft={draft} edit={edit} /> : <CpuFields draft={draft} edit={edit} />}
        <Field as="textarea" label="Environment" value={draft.env} onChange={(e) => edit({ env: e.target.value })} rows={3}
          placeholder="HF_TOKEN=…" hint="NAME=value, one a line; the values go to the provider and are not kept here" />
        <p><label className="q-switch"><input type="checkbox" checked={draft.is_public} onChange={(e) => edit({ is_public: e.target.checked })} /> Public: any member of the org's server may use it</label></p>
        {!draft.is_public && <AllowedPicker key={round} chosen={draft.allowed} onChange={(allowed) => edit({ allowed })} />}
        <Button type="submit" variant="primary" disabled={create.isPending}>{create.isPending ? 'Creating…' : 'Create pod'}</Button>
      </form>
      {formError && <ErrorNote error={formError} title="Pod not created" />}
      {create.error && <ErrorNote error={create.error} title="Pod not created" />}
      {made && !create.error && <p role="status" style={ok}>Pod {made.name} created ({made.status}).</p>}
    </Card>
  );
}

/** The members a new pod allows: found by search, removed by a click. */
function AllowedPicker({ chosen, onChange }: { chosen: Member[]; onChange: (members: Member[]) => void }) {
  return (
    <fieldset className="q-field" style={{ border: 0, padding: 0, margin: '0 0 12px' }}>
      <legend className="q-label">Allowed members</legend>
      <p className="q-hint" style={{ margin: '0 0 8px' }}>
        {chosen.length === 0 ? 'None yet: officers only. ' : chosen.map((m) => (
          <Button key={m.id} onClick={() => onChange(chosen.filter((c) => c.id !== m.id))} aria-label={`Remove ${m.name}`} style={{ marginRight: 6 }}>{m.name} ✕</Button>
        ))}
      </p>
      <MemberSearch isChosen={(id) => chosen.some((m) => m.id === id)} onPick={(m) => onChange([...chosen, m])} />
    </fieldset>
  );
}
