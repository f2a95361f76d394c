// The org's pod provider, from the pods module's service `podhost.provider` (plugins never import each other, so
// the interface the hosting module relies on is declared here; the registry checks at boot that the pods module
// provides it). Failures arrive as plain errors with `kind` 'refused' (the provider's 4xx) or 'failed'.
import { defineService, HttpError, type CoreServices, type EntityManager, type OrgDb } from '@quad/core';

export interface PodSpec {
  name: string;
  image: string;
  gpu?: { typeId: string; count: number };
  cpu?: { flavor: string; vcpus: number };
  env: Record<string, string>;
  /** `port/protocol`, e.g. 8080/http. */
  ports: string[];
}

export interface ProviderPod {
  id: string;
  name: string;
  status: string;
  image: string;
  gpu: { typeId: string; count: number } | null;
  cpu: { flavor: string; vcpus: number } | null;
  costPerHour: number | null;
}

export interface PodProvider {
  get(id: string): Promise<ProviderPod | null>;
  create(spec: PodSpec): Promise<ProviderPod>;
  update(id: string, patch: { image?: string; env?: Record<string, string> }): Promise<ProviderPod>;
  /** A pod the provider no longer has counts as deleted. */
  delete(id: string): Promise<void>;
}

export interface PodProviderService {
  forOrg(em: EntityManager, orgId: number): Promise<PodProvider | null>;
}

export const podProviderRef = defineService<PodProviderService>({ id: 'podhost.provider', methods: ['forOrg'] });

/** A provider failure as the pods module's service throws it. */
export interface ProviderError { kind: 'refused' | 'failed'; status?: number; reason?: string; message: string }

export function isProviderError(err: unknown): err is ProviderError {
  const kind = (err as { kind?: unknown } | null)?.kind;
  return err instanceof Error && (kind === 'refused' || kind === 'failed');
}

export const NOT_CONNECTED = 'The org has no hostprov API key: set hostprov_api_key on Explore → Integrations first';

/** The org's provider (its key read on the org's handle), or null when the org has not connected it. */
export async function orgProvider(services: CoreServices, db: OrgDb): Promise<PodProvider | null> {
  return services.service(podProviderRef).forOrg(db.em, db.org);
}

/** The org's provider, or 400 saying how to connect it. */
export async function requireProvider(services: CoreServices, db: OrgDb): Promise<PodProvider> {
  const provider = await orgProvider(services, db);
  if (!provider) throw new HttpError(400, NOT_CONNECTED, 'provider_not_connected');
  return provider;
}

/** Run a provider call for a route: its refusal is 400 with its reason, its failure 424. */
export async function askProvider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!isProviderError(err)) throw err;
    if (err.kind === 'refused') throw new HttpError(400, `The pod provider refused: ${err.reason ?? err.message}`, 'provider_refused', { provider_status: err.status });
    throw new HttpError(424, err.message, 'provider_failed');
  }
}
