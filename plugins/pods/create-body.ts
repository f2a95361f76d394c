// The spec's rules of a pod create body ("Pod create body") turned into what the provider is asked for: the
// provider (hostprov, the only one), the image order (body, the org's pod_image, PODHOST_POD_IMAGE), GPU or CPU
// with their own fields, a volume only for a GPU pod of 10 GB or more, vCPUs a power of two, an absolute mount path.
import { badRequest } from '@quad/core';
import type { Static } from '@quad/core';
import { EnvNamePattern, type CreateBody } from './schemas.js';
import type { PodSpec } from './provider/types.js';
import { PROVIDER } from './settings.js';

export type CreateInput = Static<typeof CreateBody>;

/** A GPU pod gets a volume from this size up (spec: "a GPU pod gets a volume when 10 or more"). */
export const MIN_VOLUME_GB = 10;
export const DEFAULT_MOUNT_PATH = '/workspace';
export const DEFAULT_VCPUS = 2;
/** The pod image contract's variables (spec "Pods"): set by Quad, never by a create body. */
const RESERVED_ENV_PREFIX = 'PODHOST_';

const refuse = (field: string, message: string, reason = 'invalid_pod') => badRequest(`body.${field}: ${message}`, reason, { field: `body.${field}` });
const ENV_NAME = new RegExp(EnvNamePattern);
const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0;

export function podSpec(input: CreateInput, defaults: { image: string; name: string }): PodSpec {
  if ((input.provider ?? PROVIDER) !== PROVIDER) throw refuse('provider', `unknown provider "${input.provider}"; the only one is ${PROVIDER}`, 'unknown_provider');
  const cpuOnly = input.use_cpu_only === true;
  const env = input.env ?? {};
  const badNames = Object.keys(env).filter((name) => !ENV_NAME.test(name));
  if (badNames.length) throw refuse('env', `${badNames.map((n) => JSON.stringify(n)).join(', ')}: a name has letters, digits and _ and does not start with a digit`);
  const reserved = Object.keys(env).filter((name) => name.startsWith(RESERVED_ENV_PREFIX));
  if (reserved.length) throw refuse('env', `${reserved.join(', ')}: names starting ${RESERVED_ENV_PREFIX} are set by Quad (the pod image contract)`);
  if (input.volume_mount_path !== undefined && input.volume_mount_path.split('/').some((part) => part === '..' || part === '.')) {
    throw refuse('volume_mount_path', 'must be an absolute path without . or .. parts');
  }
  const spec: PodSpec = {
    name: input.name ?? defaults.name,
    image: input.image_name ?? defaults.image,
    env,
    ports: ['22/tcp'],
    ...(input.cloud_type !== undefined && { cloudType: input.cloud_type }),
    ...(input.container_disk_in_gb !== undefined && { containerDiskGb: input.container_disk_in_gb }),
  };
  if (cpuOnly) {
    if (input.gpu_type_id !== undefined || input.gpu_count !== undefined) throw refuse('gpu_type_id', 'a CPU pod (use_cpu_only) has no GPU fields');
    if (input.cpu_flavor === undefined) throw refuse('cpu_flavor', 'a CPU pod needs a cpu_flavor');
    const vcpus = input.vcpu_count ?? DEFAULT_VCPUS;
    if (!isPowerOfTwo(vcpus)) throw refuse('vcpu_count', `${vcpus} is not a power of two (1, 2, 4, 8…)`);
    if ((input.volume_in_gb ?? 0) > 0 || input.volume_mount_path !== undefined) throw refuse('volume_in_gb', 'a CPU pod has no volume');
    return { ...spec, cpu: { flavor: input.cpu_flavor, vcpus } };
  }
  if (input.cpu_flavor !== undefined || input.vcpu_count !== undefined) throw refuse('cpu_flavor', 'cpu_flavor and vcpu_count are for CPU pods (use_cpu_only: true)');
  if (input.gpu_type_id === undefined) throw refuse('gpu_type_id', 'a GPU pod needs a gpu_type_id (or use_cpu_only: true for a CPU pod)');
  const volumeGb = input.volume_in_gb ?? 0;
  if (volumeGb < MIN_VOLUME_GB && input.volume_mount_path !== undefined) {
    throw refuse('volume_mount_path', `a volume needs volume_in_gb of ${MIN_VOLUME_GB} or more`);
  }
  return {
    ...spec,
    gpu: { typeId: input.gpu_type_id, count: input.gpu_count ?? 1 },
    ...(volumeGb >= MIN_VOLUME_GB && { volume: { sizeGb: volumeGb, mountPath: input.volume_mount_path ?? DEFAULT_MOUNT_PATH } }),
  };
}
