// The create form's hardware: GPU or CPU, and the fields of that kind only (a GPU pod's type, count and volume; a CPU
// pod's flavor and vCPUs, and no volume).
import { Field } from '@quad/web/sdk';
import { row } from './common.js';
import { VCPU_COUNTS, type PodDraft } from './pod-draft.js';

type Edit = (change: Partial<PodDraft>) => void;

export function KindChoice({ kind, onChange }: { kind: PodDraft['kind']; onChange: (kind: PodDraft['kind']) => void }) {
  return (
    <fieldset className="q-field" style={{ border: 0, padding: 0, margin: '0 0 12px' }}>
      <legend className="q-label">Kind</legend>
      <span style={{ display: 'inline-flex', gap: 16 }}>
        <label className="q-switch"><input type="radio" name="pod-kind" checked={kind === 'gpu'} onChange={() => onChange('gpu')} /> GPU pod</label>
        <label className="q-switch"><input type="radio" name="pod-kind" checked={kind === 'cpu'} onChange={() => onChange('cpu')} /> CPU pod</label>
      </span>
    </fieldset>
  );
}

export function GpuFields({ draft, edit }: { draft: PodDraft; edit: Edit }) {
  return (
    <div style={row}>
      <Field label="GPU type" value={draft.gpu_type_id} onChange={(e) => edit({ gpu_type_id: e.target.value })} required maxLength={100}
        placeholder="NVIDIA RTX A4000" hint="The provider's GPU type id" />
      <Field label="GPUs" type="number" min={1} max={16} step={1} value={draft.gpu_count} onChange={(e) => edit({ gpu_count: e.target.value })} hint="1–16" />
      <Field label="Volume (GB)" type="number" min={0} max={10000} step={1} value={draft.volume_in_gb} onChange={(e) => edit({ volume_in_gb: e.target.value })}
        hint="10 or more gives the pod a volume that outlives restarts" />
      <Field label="Volume mount path" value={draft.volume_mount_path} onChange={(e) => edit({ volume_mount_path: e.target.value })} maxLength={255}
        placeholder="/workspace" hint="Absolute; default /workspace" />
    </div>
  );
}

export function CpuFields({ draft, edit }: { draft: PodDraft; edit: Edit }) {
  return (
    <div style={row}>
      <Field label="CPU flavor" value={draft.cpu_flavor} onChange={(e) => edit({ cpu_flavor: e.target.value })} required maxLength={100}
        placeholder="cpu3c" hint="The provider's CPU flavor id" />
      <Field as="select" label="vCPUs" value={draft.vcpu_count} onChange={(e) => edit({ vcpu_count: e.target.value })} hint="A CPU pod has no volume">
        {VCPU_COUNTS.map((n) => <option key={n} value={n}>{n}</option>)}
      </Field>
    </div>
  );
}
