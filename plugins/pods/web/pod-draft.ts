// The create form's fields as text, and the create body they make (spec "Pod create body"): only what the officer
// filled in is sent, so the server's defaults (the image order, one GPU, /workspace) apply to the rest. The server
// checks the rules between fields and answers what is wrong.
import type { Member } from './common.js';

export interface PodDraft {
  kind: 'gpu' | 'cpu';
  name: string; image_name: string; cloud_type: string; container_disk_in_gb: string;
  gpu_type_id: string; gpu_count: string; volume_in_gb: string; volume_mount_path: string;
  cpu_flavor: string; vcpu_count: string;
  env: string; is_public: boolean; allowed: Member[];
}

export const EMPTY_DRAFT: PodDraft = {
  kind: 'gpu', name: '', image_name: '', cloud_type: '', container_disk_in_gb: '',
  gpu_type_id: '', gpu_count: '1', volume_in_gb: '', volume_mount_path: '',
  cpu_flavor: '', vcpu_count: '2', env: '', is_public: false, allowed: [],
};

/** vCPU counts the provider takes (a power of two). */
export const VCPU_COUNTS = [1, 2, 4, 8, 16, 32, 64];
/** Hosting tiers; empty leaves it to the provider. */
export const CLOUD_TYPES = ['', 'COMMUNITY', 'SECURE'];

/** `NAME=value` lines as an object; blank lines skipped. Throws saying which line has no `=`. */
export function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const at = line.indexOf('=');
    if (at < 1) throw new Error(`Environment line ${i + 1} is not NAME=value`);
    env[line.slice(0, at).trim()] = line.slice(at + 1);
  });
  return env;
}

const text = (value: string) => value.trim() || undefined;
const integer = (value: string) => (value.trim() ? Number(value) : undefined);

/** The create body of a draft (undefined fields are left out of the JSON). Throws on an environment line without `=`. */
export function createBody(draft: PodDraft): Record<string, unknown> {
  const env = parseEnv(draft.env);
  const common = {
    name: text(draft.name), image_name: text(draft.image_name), cloud_type: text(draft.cloud_type),
    container_disk_in_gb: integer(draft.container_disk_in_gb),
    ...(Object.keys(env).length > 0 && { env }),
    is_public: draft.is_public,
    ...(draft.allowed.length > 0 && { allowed_users: draft.allowed.map((m) => m.id) }),
  };
  if (draft.kind === 'cpu') return { ...common, use_cpu_only: true, cpu_flavor: text(draft.cpu_flavor), vcpu_count: integer(draft.vcpu_count) };
  return {
    ...common, gpu_type_id: text(draft.gpu_type_id), gpu_count: integer(draft.gpu_count),
    volume_in_gb: integer(draft.volume_in_gb), volume_mount_path: text(draft.volume_mount_path),
  };
}
