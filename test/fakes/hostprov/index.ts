// Fake hostprov (RunPod's REST API v2, its pod endpoints) for tests: a real HTTP server on 127.0.0.1 (random port)
// answering under /v2 as docs.runpod.io/api-reference-v2 describes: GET and POST /v2/pods, GET, PATCH and DELETE
// /v2/pods/{id}, POST /v2/pods/{id}/action. Pods live in memory. A created pod is RUNNING at once (the real one goes
// through PROVISIONING and STARTING); stop makes it EXITED, start RUNNING, restart keeps it RUNNING, and an action its
// status does not allow gets 409, as the API's. Bodies are checked the API's way: 422 with `errors` for a body against
// the schema (unknown, missing or mistyped fields), 400 for its cross-field rules (exactly one of gpu and cpu, no
// persistent volume on a CPU pod); errors are problem objects {title, status, detail, errors?}. A running pod publishes
// its 22/tcp on options.ssh (so a test can point it at a real sshd on loopback), a stopped one publishes nothing.
// It records every request and can be made to refuse, fail, hang or answer garbage. Test code, not production code.
// Beside the API it plays the provider's HTTP proxy to the pods' ports (what the hosting module's health checks
// reach): /proxy/{pod_id}/{port}/<path> answers as the test set with `proxy(...)` (a status, or never: 'hang'), 502
// for a pod or port it was told nothing of; `proxyUrl` is the template to use as HOSTPROV_PROXY_URL. Proxied requests
// skip the API's key check and the refuse/fail/garble queue, and are recorded in `proxyRequests`, not `requests`.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/** A pod as the v2 API answers it (schema Pod, the fields Quad could read). */
export interface FakeHostprovPod {
  id: string;
  name: string;
  image: string;
  args: string;
  disk: number;
  ports: string[];
  env: Record<string, string>;
  registry: null;
  status: string;
  /** The actions the status allows. */
  actions: string[];
  mounts: { persistent?: { size: number; path: string } };
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number; memory: number };
  cloud: string;
  dataCenterId: string | null;
  ssh: { proxy: FakeSshEndpoint | null; direct: FakeSshEndpoint | null };
  template: null;
  /** USD per hour; 0 unless running. */
  cost: number;
  locked: boolean;
  globalNetworking: { enabled: boolean };
  /** Null unless RUNNING; then the public address of each tcp port. */
  runtime: { uptime: number; ports: { private: number; public: number; type: 'tcp'; ip: string }[] } | null;
  createdAt: string;
  startedAt: string | null;
}

export interface FakeSshEndpoint { host: string; port: number; username: string; command: string }

export interface RecordedHostprovRequest {
  method: string;
  /** Path without the query, e.g. /v2/pods/abc/action. */
  path: string;
  /** The JSON body (or its text when it is not JSON); null without a body. */
  body: unknown;
  /** The bearer key sent, or null. */
  key: string | null;
  headers: IncomingHttpHeaders;
}

/** How the proxy answers for one pod's port: a status (and body), or never ('hang', until close). */
export type FakeProxyAnswer = { status: number; body?: string } | 'hang';

export interface RecordedProxyRequest { podId: string; port: number; method: string; path: string }

export interface FakeHostprovOptions {
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. Default: any key or none is accepted. */
  apiKey?: string;
  /** Where every running pod's 22/tcp is published. Default: 203.0.113.10 with a port of its own per pod. */
  ssh?: { host: string; port: number };
}

export interface FakeHostprov {
  /** http://127.0.0.1:PORT/v2 — use as HOSTPROV_API_URL. */
  readonly url: string;
  /** What the provider holds now, oldest first, as GET /v2/pods would list it (a fresh copy at each read). */
  readonly pods: readonly FakeHostprovPod[];
  readonly requests: RecordedHostprovRequest[];
  /** The next request is answered `status` with `message` as the problem's detail (a 4xx: the provider refuses). */
  refuseNext(status: number, message: string): void;
  /**
   * The next `count` requests fail: answered `status` with a problem object, never answered ('timeout'), or carried
   * out but never answered ('late': the provider finishes after the client gave up).
   */
  failNext(failure: number | 'timeout' | 'late', count?: number): void;
  /** The next `count` requests are answered 200 with an HTML page (a proxy's, say), not JSON. */
  garbleNext(count?: number): void;
  /** The provider loses the pod: it answers 404 for it from now on (Quad's GONE). */
  remove(id: string): void;
  /** Sets the pod's status as is (e.g. PROVISIONING, EXITED, ERROR; not upper-cased, to test readers). */
  setStatus(id: string, status: string): void;
  /** From now on every running pod publishes its 22/tcp here (a real sshd started once the pods' keys exist). */
  publishSshAt(endpoint: { host: string; port: number }): void;
  /** http://127.0.0.1:PORT/proxy/{pod_id}/{port} — use as HOSTPROV_PROXY_URL. */
  readonly proxyUrl: string;
  /** Requests that reached the proxy, oldest first. */
  readonly proxyRequests: RecordedProxyRequest[];
  /** From now on the proxy answers requests to the pod's port this way (null: back to 502, nothing there). */
  proxy(podId: string, port: number, answer: FakeProxyAnswer | null): void;
  close(): Promise<void>;
}

interface StoredPod {
  id: string; name: string; image: string; args: string; disk: number; ports: string[]; env: Record<string, string>;
  persistent?: { size: number; path: string };
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number };
  cloud: string; status: string; createdAt: string; startedAt: string | null;
  /** This pod's public port for 22/tcp when options.ssh is not set. */
  sshPort: number;
}

type Forced = { kind: 'refuse'; status: number; message: string } | { kind: 'fail'; status: number } | { kind: 'timeout' } | { kind: 'late' } | { kind: 'garble' };

/** The actions each status allows (the docs' podAction table). */
const ALLOWED_ACTIONS: Record<string, string[]> = {
  RUNNING: ['stop', 'restart', 'terminate'],
  EXITED: ['start', 'terminate'],
  ERROR: ['start', 'terminate'],
  PROVISIONING: ['stop', 'terminate'],
  STARTING: ['stop', 'terminate'],
};
const CREATE_FIELDS = new Set([
  'name', 'image', 'args', 'disk', 'env', 'ports', 'registry', 'mounts', 'gpu', 'cpu', 'cloud', 'dataCenterIds',
  'globalNetworking', 'startJupyter', 'startSsh', 'templateId',
]);
const UPDATE_FIELDS = new Set(['name', 'image', 'args', 'disk', 'env', 'ports', 'registry', 'mounts', 'locked', 'globalNetworking', 'templateId']);
const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  409: 'Conflict', 422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway',
  503: 'Service Unavailable', 504: 'Gateway Timeout',
};
/** Price per GPU and per vCPU, so costs can be asserted. */
export const FAKE_HOSTPROV_GPU_HOURLY = 0.44;
export const FAKE_HOSTPROV_VCPU_HOURLY = 0.03;
const DEFAULT_SSH_HOST = '203.0.113.10'; // TEST-NET-3: never a real machine

class Problem {
  constructor(readonly status: number, readonly detail: string, readonly errors?: string[]) {}
}
/** A path outside the API: answered like a bare router (text), not with a problem object. A guess; see the adapter. */
const UNKNOWN_ROUTE = Symbol('unknown route');

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isInt = (x: unknown, min: number): x is number => typeof x === 'number' && Number.isInteger(x) && x >= min;

/** Schema checks of a create body (the 422 kind): each violation in the API's `$.path: message` style. */
function createErrors(b: Record<string, unknown>): string[] {
  const errors = Object.keys(b).filter((k) => !CREATE_FIELDS.has(k)).map((k) => `$: additional properties '${k}' not allowed`);
  if (typeof b.name !== 'string' || !b.name) errors.push(b.name === undefined ? "$: missing property 'name'" : '$.name: expected a non-empty string');
  if (b.image === undefined && b.templateId === undefined) errors.push("$: missing property 'image'");
  else if (b.image !== undefined && typeof b.image !== 'string') errors.push('$.image: expected a string');
  if (b.gpu !== undefined) {
    if (!isObject(b.gpu) || typeof b.gpu.id !== 'string') errors.push("$.gpu: missing property 'id'");
    else if (b.gpu.count !== undefined && !isInt(b.gpu.count, 1)) errors.push('$.gpu.count: expected an integer >= 1');
  }
  if (b.cpu !== undefined) {
    if (!isObject(b.cpu) || typeof b.cpu.id !== 'string' || !b.cpu.id) errors.push("$.cpu: missing property 'id'");
    else if (!isInt(b.cpu.vcpuCount, 2)) errors.push('$.cpu.vcpuCount: expected an integer >= 2');
    else errors.push(...Object.keys(b.cpu).filter((k) => k !== 'id' && k !== 'vcpuCount').map((k) => `$.cpu: additional properties '${k}' not allowed`));
  }
  if (b.disk !== undefined && !isInt(b.disk, 1)) errors.push('$.disk: expected an integer >= 1');
  if (b.cloud !== undefined && b.cloud !== 'SECURE' && b.cloud !== 'COMMUNITY') errors.push("$.cloud: value must be one of 'SECURE', 'COMMUNITY'");
  errors.push(...envErrors(b.env));
  if (b.ports !== undefined && !(Array.isArray(b.ports) && b.ports.every((p) => typeof p === 'string'))) errors.push('$.ports: expected an array of strings');
  if (b.mounts !== undefined) {
    const persistent = isObject(b.mounts) ? b.mounts.persistent : undefined;
    if (!isObject(b.mounts)) errors.push('$.mounts: expected an object');
    else if (persistent !== undefined && !(isObject(persistent) && isInt(persistent.size, 10) && typeof persistent.path === 'string')) {
      errors.push('$.mounts.persistent: expected {size: integer >= 10, path: string}');
    }
  }
  return errors;
}

function envErrors(env: unknown): string[] {
  if (env === undefined) return [];
  if (!isObject(env) || !Object.values(env).every((v) => typeof v === 'string')) return ['$.env: expected an object of strings'];
  return [];
}

/** The handler's cross-field rules (the 400 kind), once the body matches the schema. */
function createRule(b: Record<string, unknown>): string | null {
  if ((b.gpu === undefined) === (b.cpu === undefined)) return 'exactly one of gpu or cpu must be set';
  const mounts = (b.mounts ?? {}) as { persistent?: unknown; network?: unknown };
  if (mounts.persistent !== undefined && mounts.network !== undefined) return 'at most one of mounts.persistent and mounts.network may be set';
  if (b.cpu !== undefined && mounts.persistent !== undefined) return 'mounts.persistent is not supported on CPU pods; use a network volume';
  const vcpus = (b.cpu as { vcpuCount?: number } | undefined)?.vcpuCount;
  if (vcpus !== undefined && (vcpus & (vcpus - 1)) !== 0) return `cpu.vcpuCount must be a power of two (got ${vcpus})`;
  const bad = ((b.ports ?? []) as string[]).find((p) => !/^\d{1,5}\/(tcp|http|udp)$/.test(p));
  if (bad !== undefined) return `invalid port '${bad}': expected port/protocol, e.g. 22/tcp`;
  return null;
}

let nextSshPort = 40_000;

export async function startFakeHostprov(options: FakeHostprovOptions = {}): Promise<FakeHostprov> {
  const stored = new Map<string, StoredPod>();
  const requests: RecordedHostprovRequest[] = [];
  const forced: Forced[] = [];
  const held: ServerResponse[] = [];
  let sshAt = options.ssh ?? null;
  const proxied = new Map<string, FakeProxyAnswer>();
  const proxyRequests: RecordedProxyRequest[] = [];

  const view = (p: StoredPod): FakeHostprovPod => {
    const running = p.status === 'RUNNING';
    const ssh = sshAt ?? { host: DEFAULT_SSH_HOST, port: p.sshPort };
    const publishes22 = running && p.ports.includes('22/tcp');
    const hourly = p.gpu ? p.gpu.count * FAKE_HOSTPROV_GPU_HOURLY : p.cpu!.vcpuCount * FAKE_HOSTPROV_VCPU_HOURLY;
    return {
      id: p.id, name: p.name, image: p.image, args: p.args, disk: p.disk, ports: [...p.ports], env: { ...p.env }, registry: null,
      status: p.status, actions: ALLOWED_ACTIONS[p.status] ?? ['terminate'],
      mounts: p.persistent ? { persistent: { ...p.persistent } } : {},
      ...(p.gpu ? { gpu: { ...p.gpu } } : { cpu: { ...p.cpu!, memory: p.cpu!.vcpuCount * 2 } }),
      cloud: p.cloud, dataCenterId: 'FAKE-1', template: null, cost: running ? Math.round(hourly * 100) / 100 : 0,
      locked: false, globalNetworking: { enabled: false },
      ssh: {
        proxy: { host: 'ssh.fake.invalid', port: 22, username: `${p.id}-fake`, command: `ssh ${p.id}-fake@ssh.fake.invalid` },
        direct: publishes22 ? { host: ssh.host, port: ssh.port, username: 'root', command: `ssh root@${ssh.host} -p ${ssh.port}` } : null,
      },
      runtime: running
        ? { uptime: 60, ports: publishes22 ? [{ private: 22, public: ssh.port, type: 'tcp', ip: ssh.host }] : [] }
        : null,
      createdAt: p.createdAt, startedAt: p.startedAt,
    };
  };

  const found = (id: string): StoredPod => {
    const pod = stored.get(id);
    if (!pod) throw new Problem(404, 'The requested Pod does not exist.');
    return pod;
  };

  const create = (body: unknown): [number, unknown] => {
    if (!isObject(body)) throw new Problem(422, 'Request validation failed.', ['$: expected an object']);
    const errors = createErrors(body);
    if (errors.length) throw new Problem(422, 'Request validation failed.', errors);
    const rule = createRule(body);
    if (rule) throw new Problem(400, rule);
    if (body.templateId !== undefined) throw new Problem(404, `template ${String(body.templateId)} not found`); // the fake has none
    const gpu = body.gpu as { id: string; count?: number } | undefined;
    const cpu = body.cpu as { id: string; vcpuCount: number } | undefined;
    const persistent = (body.mounts as { persistent?: { size: number; path: string } } | undefined)?.persistent;
    const now = new Date().toISOString();
    const pod: StoredPod = {
      id: randomBytes(8).toString('hex').slice(0, 10), name: body.name as string, image: body.image as string,
      args: (body.args as string | undefined) ?? '', disk: (body.disk as number | undefined) ?? 50,
      ports: (body.ports as string[] | undefined) ?? [], env: (body.env as Record<string, string> | undefined) ?? {},
      ...(persistent ? { persistent: { size: persistent.size, path: persistent.path } } : {}),
      ...(gpu ? { gpu: { id: gpu.id, count: gpu.count ?? 1 } } : { cpu: { id: cpu!.id, vcpuCount: cpu!.vcpuCount } }),
      cloud: (body.cloud as string | undefined) ?? 'SECURE', status: 'RUNNING', createdAt: now, startedAt: now, sshPort: nextSshPort++,
    };
    stored.set(pod.id, pod);
    return [201, view(pod)];
  };

  const update = (pod: StoredPod, body: unknown): [number, unknown] => {
    if (!isObject(body)) throw new Problem(422, 'Request validation failed.', ['$: expected an object']);
    const errors = Object.keys(body).filter((k) => !UPDATE_FIELDS.has(k)).map((k) => `$: additional properties '${k}' not allowed`);
    if (body.name !== undefined && (typeof body.name !== 'string' || !body.name)) errors.push('$.name: expected a non-empty string');
    if (body.image !== undefined && typeof body.image !== 'string') errors.push('$.image: expected a string');
    errors.push(...envErrors(body.env));
    if (errors.length) throw new Problem(422, 'Request validation failed.', errors);
    if (typeof body.name === 'string') pod.name = body.name;
    if (typeof body.image === 'string') pod.image = body.image;
    if (body.env !== undefined) pod.env = { ...(body.env as Record<string, string>) }; // PATCH replaces the env
    return [200, view(pod)];
  };

  const act = (pod: StoredPod, body: unknown): [number, unknown] => {
    const action = isObject(body) ? body.action : undefined;
    if (!isObject(body) || Object.keys(body).length !== 1 || typeof action !== 'string' || !['start', 'stop', 'restart', 'terminate'].includes(action)) {
      throw new Problem(422, 'Request validation failed.', ["$.action: value must be one of 'start', 'stop', 'restart', 'terminate'"]);
    }
    if (!(ALLOWED_ACTIONS[pod.status] ?? ['terminate']).includes(action)) {
      throw new Problem(409, `cannot ${action} a pod in status ${pod.status}`);
    }
    if (action === 'terminate') {
      stored.delete(pod.id);
      return [204, undefined];
    }
    pod.status = action === 'stop' ? 'EXITED' : 'RUNNING';
    if (action !== 'stop') pod.startedAt = new Date().toISOString();
    return [200, view(pod)];
  };

  const route = (method: string, path: string, body: unknown): [number, unknown] => {
    if (path === '/v2/pods') {
      if (method === 'GET') return [200, { pods: [...stored.values()].map(view) }];
      if (method === 'POST') return create(body);
      throw new Problem(405, 'The requested method is not allowed for this path.');
    }
    const m = /^\/v2\/pods\/([^/]+)(\/action)?$/.exec(path);
    if (!m) throw UNKNOWN_ROUTE;
    const id = decodeURIComponent(m[1]);
    if (m[2]) {
      if (method !== 'POST') throw new Problem(405, 'The requested method is not allowed for this path.');
      return act(found(id), body);
    }
    if (method === 'GET') return [200, view(found(id))];
    if (method === 'PATCH') return update(found(id), body);
    if (method === 'DELETE') {
      found(id);
      stored.delete(id);
      return [204, undefined];
    }
    throw new Problem(405, 'The requested method is not allowed for this path.');
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      const toPod = /^\/proxy\/([^/]+)\/(\d+)(\/.*)?$/.exec(path);
      if (toPod) {
        const [, podId, port, rest] = toPod;
        proxyRequests.push({ podId: decodeURIComponent(podId!), port: Number(port), method, path: rest ?? '/' });
        const answer = proxied.get(`${decodeURIComponent(podId!)}:${port}`);
        if (answer === 'hang') { held.push(res); return; }
        res.writeHead(answer?.status ?? 502, { 'content-type': 'text/plain' });
        res.end(answer ? answer.body ?? '' : 'no pod is listening here');
        return;
      }
      const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      let badJson = false;
      if (text) {
        try { body = JSON.parse(text); } catch { body = text; badJson = true; }
      }
      requests.push({ method, path, body, key, headers: req.headers });

      const send = (status: number, payload: unknown, type = 'application/json') => {
        if (payload === undefined) {
          res.writeHead(status);
          res.end();
          return;
        }
        res.writeHead(status, { 'content-type': type });
        res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
      };
      const problem = (p: Problem) => {
        send(p.status, { title: TITLES[p.status] ?? 'Error', status: p.status, detail: p.detail, ...(p.errors ? { errors: p.errors } : {}) },
          'application/problem+json');
      };

      const next = forced.shift();
      if (next?.kind === 'timeout') { held.push(res); return; }
      if (next?.kind === 'late') {
        try { route(method, path, body); } catch { /* what it did is in its state; the answer never leaves */ }
        held.push(res);
        return;
      }
      if (next?.kind === 'garble') return send(200, '<html><body><h1>Service temporarily unavailable</h1></body></html>', 'text/html');
      if (next?.kind === 'refuse') return problem(new Problem(next.status, next.message));
      if (next?.kind === 'fail') return problem(new Problem(next.status, `fake failure ${next.status}`));
      if (options.apiKey !== undefined && key !== options.apiKey) {
        return problem(new Problem(401, key === null ? 'missing bearer token' : 'invalid bearer token'));
      }
      if (badJson) return problem(new Problem(400, 'request body is not valid JSON'));
      try {
        const [status, payload] = route(method, path, body);
        send(status, payload);
      } catch (err) {
        if (err === UNKNOWN_ROUTE) return send(404, '404 page not found\n', 'text/plain; charset=utf-8');
        if (err instanceof Problem) return problem(err);
        problem(new Problem(500, 'internal error'));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;

  let closed = false;
  return {
    url, requests, proxyRequests,
    proxyUrl: `${url.replace(/\/v2$/, '')}/proxy/{pod_id}/{port}`,
    proxy(podId, port, answer) {
      if (answer === null) proxied.delete(`${podId}:${port}`);
      else proxied.set(`${podId}:${port}`, answer);
    },
    get pods() {
      return [...stored.values()].map(view);
    },
    refuseNext(status, message) {
      forced.push({ kind: 'refuse', status, message });
    },
    failNext(failure, count = 1) {
      for (let i = 0; i < count; i++) forced.push(typeof failure === 'number' ? { kind: 'fail', status: failure } : { kind: failure });
    },
    garbleNext(count = 1) {
      for (let i = 0; i < count; i++) forced.push({ kind: 'garble' });
    },
    remove(id) {
      stored.delete(id);
    },
    publishSshAt(endpoint) {
      sshAt = { ...endpoint };
    },
    setStatus(id, status) {
      const pod = stored.get(id);
      if (!pod) throw new Error(`fake hostprov: no pod ${id}`);
      pod.status = status;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
