// What the pods module needs from a pod provider (spec document 2, "Pods"): hostprov is the only one today
// (hostprov.ts, its v2 REST API). Routes and jobs speak this interface; they never see the provider's wire format.

/** A pod to create, already checked against the spec's create-body rules (routes/pods.ts). */
export interface PodSpec {
  name: string;
  /** Image reference (body image_name, else the org's pod_image, else PODHOST_POD_IMAGE). */
  image: string;
  /** Exactly one of gpu and cpu. */
  gpu?: { typeId: string; count: number };
  cpu?: { flavor: string; vcpus: number };
  /** Hosting tier, e.g. COMMUNITY or SECURE; the provider's default when unset. */
  cloudType?: string;
  containerDiskGb?: number;
  /** A persistent volume (GPU pods only, 10 GB or more). */
  volume?: { sizeGb: number; mountPath: string };
  env: Record<string, string>;
  /** Names in `env` whose values are secrets (the pod's host private key): a refusal that quotes them is cut. */
  secretEnv?: string[];
  /** Exposed ports as `port/protocol`; 22/tcp is always among them (members connect over SSH). */
  ports: string[];
  /** Names this create on the pod it makes (ProviderPod.createId), so a pod made for an unanswered create is found. */
  createId?: string;
}

/** Where members and the service reach the pod's SSH server, once the provider has given it an address. */
export interface SshEndpoint { host: string; port: number }

/** A pod as the provider describes it now. */
export interface ProviderPod {
  id: string;
  name: string;
  /** The provider's status in upper case: RUNNING, EXITED, PROVISIONING, STARTING… (GONE is ours: `get` answered null). */
  status: string;
  image: string;
  gpu: { typeId: string; count: number } | null;
  cpu: { flavor: string; vcpus: number } | null;
  /** Null until the pod runs and has a public address for port 22. */
  ssh: SshEndpoint | null;
  /** Price per hour in US dollars, when the provider says. */
  costPerHour: number | null;
  /** The create that made it (PodSpec.createId), when it was made with one. */
  createId: string | null;
}

/** The fields PUT may change on the provider (the rest of a pod is fixed at creation). */
export interface PodUpdate { name?: string; image?: string; env?: Record<string, string> }

export interface PodProvider {
  /** Every pod of the account (the org's own provider account). */
  list(): Promise<ProviderPod[]>;
  /** The pod, or null when the provider no longer has it (the record's status is then GONE). */
  get(id: string): Promise<ProviderPod | null>;
  create(spec: PodSpec): Promise<ProviderPod>;
  update(id: string, patch: PodUpdate): Promise<ProviderPod>;
  start(id: string): Promise<void>;
  stop(id: string): Promise<void>;
  restart(id: string): Promise<void>;
  /** Deletes the pod; a pod the provider no longer has counts as deleted. */
  delete(id: string): Promise<void>;
}

/** The provider refused the request (a 4xx other than 404 on get/delete): the route answers 400 with `reason`. */
export class ProviderRefused extends Error {
  override name = 'ProviderRefused';
  constructor(readonly reason: string, readonly status: number) {
    super(`The pod provider refused the request (${status}): ${reason}`);
  }
}

/** The provider failed (5xx, timeout, unreachable, an answer we cannot read): the route answers 424. */
export class ProviderFailed extends Error {
  override name = 'ProviderFailed';
}
