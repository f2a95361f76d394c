// The hostprov pod provider: RunPod's REST API v2 (beta; https://docs.runpod.io/api-reference-v2, modelled on its
// OpenAPI as of Frontdoor v2.9.0), base HOSTPROV_API_URL ending /v2, paths below it, with the org's API key as bearer.
//   GET /pods → {pods: Pod[]} · POST /pods → 201 Pod · GET | PATCH /pods/{id} → Pod · DELETE /pods/{id} → 204
//   POST /pods/{id}/action {action: start|stop|restart} → Pod (409 when the pod's status does not allow it)
// Create body: name, image, exactly one of gpu {id, count} and cpu {id, vcpuCount}, cloud (SECURE | COMMUNITY, the
// provider defaults to SECURE), disk (container GB), mounts.persistent {size ≥ 10, path} (GPU pods only), env, ports.
// Errors are RFC 9457 problem objects {title, status, detail, errors?}: 422 for a body against the schema, 400 for a
// cross-field rule or no capacity, 404 for an unknown pod.
// A create's id (PodSpec.createId) travels in the pod's env as PODHOST_CREATE_ID and is read back from a pod's `env`.
// Not documented, so chosen here: the SSH endpoint is read from runtime.ports (the entry private 22/tcp: its ip and
// public port), else from ssh.direct (host, port), and only while the pod is RUNNING; a 404 means "no such pod" only
// when its body is a JSON problem object (anything else is a wrong URL, not a lost pod: see `failure`).
// Every failure is a ProviderRefused (4xx) or ProviderFailed (the rest) whose message never carries the key, nor a
// create's secret env values (PodSpec.secretEnv) should the provider quote them.
import {
  ProviderFailed, ProviderRefused, type PodProvider, type PodSpec, type PodUpdate, type ProviderPod, type SshEndpoint,
} from './types.js';

/** The environment variable that carries PodSpec.createId on the pod (the API has no field of ours to put it in). */
const CREATE_ID_ENV = 'PODHOST_CREATE_ID';
/** The real base URL (HOSTPROV_API_URL's default); paths such as /pods go below it. */
export const HOSTPROV_DEFAULT_URL = 'https://api.runpod.io/v2';
/** Per request, answer body included: the default of PODHOST_PROVIDER_TIMEOUT_MS. */
export const HOSTPROV_TIMEOUT_MS = 30_000;
/** Longest provider reason passed on to an officer. */
const REASON_MAX_CHARS = 300;

export interface HostprovOptions {
  /** HOSTPROV_API_URL: a deployment setting, never user-given (so plain fetch, not the safe fetcher). */
  baseUrl: string;
  /** The org's hostprov_api_key. */
  apiKey: string;
  /** Default: HOSTPROV_TIMEOUT_MS. */
  timeoutMs?: number;
}

export function hostprovProvider(options: HostprovOptions): PodProvider {
  const api = new HostprovApi(options);
  const action = (id: string, action: 'start' | 'stop' | 'restart') => api.call('POST', `${podPath(id)}/action`, { action });
  return {
    async list() {
      const answer = parseJson(await api.call('GET', '/pods'));
      const pods = isObject(answer) ? answer.pods : undefined;
      if (!Array.isArray(pods)) throw unreadable('a pod list without `pods`');
      return pods.map(toProviderPod);
    },
    async get(id) {
      const text = await api.callOrMissing('GET', podPath(id));
      return text === null ? null : toProviderPod(parseJson(text));
    },
    async create(spec) {
      const secrets = (spec.secretEnv ?? []).map((name) => spec.env[name]).filter((value): value is string => !!value);
      return toProviderPod(parseJson(await api.call('POST', '/pods', createBody(spec), secrets)));
    },
    async update(id, patch) {
      return toProviderPod(parseJson(await api.call('PATCH', podPath(id), updateBody(patch))));
    },
    // Each answers the updated pod; callers read the pod again when they need it, so it is not parsed here.
    async start(id) { await action(id, 'start'); },
    async stop(id) { await action(id, 'stop'); },
    async restart(id) { await action(id, 'restart'); },
    async delete(id) { await api.callOrMissing('DELETE', podPath(id)); },
  };
}

/** The v2 create body for a spec the routes have checked. Unset optional fields are left out: the provider's defaults. */
function createBody(spec: PodSpec): Record<string, unknown> {
  return {
    name: spec.name,
    image: spec.image,
    ...(spec.gpu ? { gpu: { id: spec.gpu.typeId, count: spec.gpu.count } } : {}),
    ...(spec.cpu ? { cpu: { id: spec.cpu.flavor, vcpuCount: spec.cpu.vcpus } } : {}),
    ...(spec.cloudType ? { cloud: spec.cloudType } : {}),
    ...(spec.containerDiskGb !== undefined ? { disk: spec.containerDiskGb } : {}),
    ...(spec.volume ? { mounts: { persistent: { size: spec.volume.sizeGb, path: spec.volume.mountPath } } } : {}),
    env: spec.createId ? { ...spec.env, [CREATE_ID_ENV]: spec.createId } : spec.env,
    ports: spec.ports,
  };
}

/** PATCH semantics: only the fields given change; `env` replaces the pod's whole environment. */
function updateBody(patch: PodUpdate): Record<string, unknown> {
  return {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.image !== undefined ? { image: patch.image } : {}),
    ...(patch.env !== undefined ? { env: patch.env } : {}),
  };
}

const podPath = (id: string) => `/pods/${encodeURIComponent(id)}`;

class HostprovApi {
  private readonly base: string;
  private readonly host: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: HostprovOptions) {
    this.base = options.baseUrl.replace(/(?<!\/)\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? HOSTPROV_TIMEOUT_MS;
    // Named in messages by host only: a URL may carry credentials in its user info or query.
    let host = 'HOSTPROV_API_URL';
    try { host = new URL(this.base).host; } catch { /* reported by the first call */ }
    this.host = host;
  }

  /**
   * The body of a 2xx answer, else the error the routes turn into 400 (ProviderRefused) or 424 (ProviderFailed);
   * `secrets` are cut from the provider's reason as the key is.
   */
  async call(method: string, path: string, body?: unknown, secrets: string[] = []): Promise<string> {
    const { status, text } = await this.send(method, path, body);
    if (status >= 200 && status < 300) return text;
    throw this.failure(status, text, secrets);
  }

  /** Like `call`, but null when the provider has no such pod (its 404 problem object). */
  async callOrMissing(method: string, path: string): Promise<string | null> {
    const { status, text } = await this.send(method, path, undefined);
    if (status >= 200 && status < 300) return text;
    if (status === 404 && isProblem(text)) return null;
    throw this.failure(status, text);
  }

  private failure(status: number, text: string, secrets: string[] = []): ProviderRefused | ProviderFailed {
    if (status === 404 && !isProblem(text)) {
      // The API answers an unknown pod with a problem object; a bare 404 page means the URL is not the API's (and
      // must not make get answer "gone" or delete "done" for pods that still run and bill).
      return new ProviderFailed(`The pod provider's API was not found at ${this.host} (404): check HOSTPROV_API_URL (it should end in /v2)`);
    }
    if (status >= 400 && status < 500) return new ProviderRefused(this.reason(text, status, secrets), status);
    if (status >= 300 && status < 400) return new ProviderFailed(`The pod provider answered a redirect (${status}): check HOSTPROV_API_URL`);
    return new ProviderFailed(`The pod provider failed (${status}); try again later`);
  }

  private async send(method: string, path: string, body: unknown): Promise<{ status: number; text: string }> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.options.apiKey}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      // A redirect would carry the key elsewhere or hide a wrong URL: it is reported, never followed.
      const res = await fetch(`${this.base}${path}`, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal, redirect: 'manual',
      });
      return { status: res.status, text: await res.text() }; // the same signal bounds the body
    } catch {
      if (signal.aborted) throw new ProviderFailed(`The pod provider did not answer within ${this.timeoutMs / 1000} s; try again later`);
      throw new ProviderFailed(`The pod provider cannot be reached at ${this.host}: check HOSTPROV_API_URL, or try again later`);
    }
  }

  /** The provider's own words from its problem object: detail, then the validation errors; short, without the key or `secrets`. */
  private reason(text: string, status: number, secrets: string[]): string {
    let said = '';
    try {
      const problem = JSON.parse(text) as { detail?: unknown; title?: unknown; errors?: unknown; message?: unknown };
      const head = [problem.detail, problem.title, problem.message].find((x) => typeof x === 'string' && x.trim()) as string | undefined;
      const errors = Array.isArray(problem.errors) ? problem.errors.filter((e) => typeof e === 'string') : [];
      said = [errors.length ? head?.replace(/\.\s*$/, '') : head, errors.join('; ')].filter(Boolean).join(': ');
    } catch { /* not JSON: no reason of its own */ }
    // Some APIs echo the key back, or a value of the body; a multi-line secret (a private key) line by line too.
    const hidden = [this.options.apiKey, ...secrets, ...secrets.flatMap((s) => s.split('\n').map((line) => line.trim()).filter((line) => line.length >= 16))];
    for (const value of hidden.filter(Boolean).sort((a, b) => b.length - a.length)) said = said.split(value).join('***');
    said = said.replace(/\s+/g, ' ').trim();
    if (!said) return `no reason given (HTTP ${status})`;
    return said.length > REASON_MAX_CHARS ? `${said.slice(0, REASON_MAX_CHARS - 1)}…` : said;
  }
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Is this 404's body the API's problem object (rather than some server's not-found page)? */
function isProblem(text: string): boolean {
  try { return isObject(JSON.parse(text)); } catch { return false; }
}

function unreadable(what: string): ProviderFailed {
  return new ProviderFailed(`The pod provider answered ${what}: check HOSTPROV_API_URL (it should end in /v2)`);
}

function parseJson(text: string): unknown {
  try { return JSON.parse(text); } catch { throw unreadable('something other than JSON'); }
}

const isPort = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x > 0 && x < 65536;

/** A v2 Pod as the routes see it. Only id and status are required; the rest is null when the provider leaves it out. */
function toProviderPod(raw: unknown): ProviderPod {
  if (!isObject(raw) || typeof raw.id !== 'string' || !raw.id || typeof raw.status !== 'string') {
    throw unreadable('a pod without an id or a status');
  }
  const status = raw.status.toUpperCase();
  const gpu = isObject(raw.gpu) && typeof raw.gpu.id === 'string'
    ? { typeId: raw.gpu.id, count: typeof raw.gpu.count === 'number' ? raw.gpu.count : 1 } : null;
  const cpu = isObject(raw.cpu) && typeof raw.cpu.id === 'string'
    ? { flavor: raw.cpu.id, vcpus: typeof raw.cpu.vcpuCount === 'number' ? raw.cpu.vcpuCount : 0 } : null;
  return {
    id: raw.id,
    name: typeof raw.name === 'string' ? raw.name : '',
    status,
    image: typeof raw.image === 'string' ? raw.image : '',
    gpu,
    cpu,
    ssh: status === 'RUNNING' ? sshEndpoint(raw) : null,
    costPerHour: typeof raw.cost === 'number' && Number.isFinite(raw.cost) ? raw.cost : null,
    createId: isObject(raw.env) && typeof raw.env[CREATE_ID_ENV] === 'string' ? raw.env[CREATE_ID_ENV] : null,
  };
}

/** The public address of the pod's 22/tcp: runtime.ports (since the first v2), else ssh.direct (added later). */
function sshEndpoint(raw: Record<string, unknown>): SshEndpoint | null {
  const ports = isObject(raw.runtime) && Array.isArray(raw.runtime.ports) ? raw.runtime.ports : [];
  for (const p of ports) {
    if (isObject(p) && p.private === 22 && (p.type ?? 'tcp') === 'tcp' && typeof p.ip === 'string' && p.ip && isPort(p.public)) {
      return { host: p.ip, port: p.public };
    }
  }
  const direct = isObject(raw.ssh) && isObject(raw.ssh.direct) ? raw.ssh.direct : null;
  if (direct && typeof direct.host === 'string' && direct.host && isPort(direct.port)) return { host: direct.host, port: direct.port };
  return null;
}
