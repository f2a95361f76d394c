// Faults of the service's SSH to a pod (spec document 2, "Errors": 502 when the SSH connection to a pod fails, on
// the file routes; the connected route stays 200 with state unknown). The pod is a real sshd (test/fakes/pod-ssh)
// behind a flaky link (test/faults/flaky-link.ts) that the provider publishes as the pod's SSH address: nothing
// listening, a connection reset as it opens, an sshd that never answers (slower than PODHOST_SSH_CONNECT_TIMEOUT_MS),
// an sshd that no longer trusts the org's backend key, and a connection cut in the middle of an upload and of a
// write. Each time every file route answers 502 `ssh_failed` without the pod's address, and nothing is changed on the
// pod (a replaced file keeps its old bytes) or audited. After recovery the same routes work.
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { newKeyPair } from '../../plugins/pods/keys.js';
import { bearer, servePod } from '@quad/core/testing';
import { startPodsWorld } from '../../plugins/pods/test/world.js';
import { startFlakyLink, type LinkMode } from './flaky-link.js';

/** Lowered from 10 s; a real handshake on a busy machine takes up to half a second, so not lower. */
const CONNECT_TIMEOUT_MS = 2500;

const w = await startPodsWorld(t, { config: { PODHOST_SSH_CONNECT_TIMEOUT_MS: CONNECT_TIMEOUT_MS } });
const { quad, org, fake, asOfficer: officer } = w;
// The sshd can only start once the org's keys exist (they are made at its first pod).
const podId = await w.createPod();
const pod = await servePod(fake, podId);
t.teardown(() => pod.close());
const link = await startFlakyLink(t);
link.forwardTo({ host: pod.host, port: pod.port });
fake.publishSshAt({ host: link.host, port: link.port });

const MB = 1024 * 1024;
const dir = join(pod.dir, 'files', 'faults');
await mkdir(join(dir, 'keep'), { recursive: true });
const FILE = join(dir, 'notes.txt');
const OLD = 'the notes as they were\n';
await writeFile(FILE, OLD);

const files = (op: string, body: unknown) => officer('POST', `/pods/${podId}/files/${op}`, body);
/** A multipart upload of one file into a folder, as a browser sends it. */
async function upload(folder: string, name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('path', folder);
  form.append('file', new Blob([bytes as BlobPart]), name);
  const request = new Request('http://quad.test/', { method: 'POST', body: form });
  return quad.api.inject({
    method: 'POST', url: `/api/compute/${org.prefix}/pods/${podId}/files/upload`,
    headers: { ...bearer(w.officerToken), 'content-type': request.headers.get('content-type')! },
    payload: Buffer.from(await request.arrayBuffer()),
  });
}

type Call = () => ReturnType<typeof files>;
const fileRoutes: Record<string, Call> = {
  list: () => officer('GET', `/pods/${podId}/files?path=${encodeURIComponent(dir)}`),
  read: () => files('read', { path: FILE }),
  write: () => files('write', { path: FILE, content: 'new notes' }),
  download: () => files('download', { path: FILE }),
  upload: () => upload(dir, 'notes.txt', new TextEncoder().encode('uploaded notes')),
  mkdir: () => files('mkdir', { path: join(dir, 'made') }),
  rename: () => files('rename', { old_path: FILE, new_path: join(dir, 'moved.txt') }),
  delete: () => files('delete', { path: join(dir, 'keep') }),
};

/** The pod's side as this test sees it on disk (the sshd runs on this machine), and the file routes' audit rows. */
const podState = async () => ({
  entries: (await readdir(dir)).sort(),
  notes: await readFile(FILE, 'utf8'),
  audit: await w.sql("select action from audit_log where action like 'podhost.file_%' order by id"),
});

interface Fault {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  error: RegExp;
  /** The file routes tried. Default: every one. */
  routes?: string[];
  /** Whether the connected route is tried too. Default: true. */
  connected?: boolean;
}
const linkFault = (name: string, mode: LinkMode, error: RegExp): Fault => ({ name, start: () => link.set(mode), stop: () => link.set('pass'), error });

/** The sshd trusts another key than the org's backend key (a pod whose image lost root's authorized key). */
const authorizedKeys = join(pod.dir, 'authorized_keys');
const ownKeys = await readFile(authorizedKeys, 'utf8');
const keyRefused: Fault = {
  name: 'the org\'s key refused',
  start: () => writeFile(authorizedKeys, `${newKeyPair('another').publicKey}\n`),
  stop: () => writeFile(authorizedKeys, ownKeys),
  error: /^SSH to the pod failed: The pod refused the service's SSH key$/,
  // Two failed logins only: OpenSSH 9.8 and later block an address after a few (PerSourcePenalties), which would
  // refuse the recovery below.
  routes: ['write', 'upload'],
  connected: false,
};

const faults: Fault[] = [
  linkFault('nothing listening', 'refuse', /^SSH to the pod failed: The pod refused the SSH connection$/),
  linkFault('the connection reset', 'reset', /^SSH to the pod failed: The pod closed the SSH connection$/),
  linkFault('no answer in time', 'hang', /^SSH to the pod failed: The pod did not finish the SSH handshake in time$/),
  keyRefused,
];

for (const fault of faults) {
  t.test(`SSH failing: ${fault.name}`, async (t) => {
    const before = await podState();
    await fault.start();
    t.teardown(() => fault.stop());
    const routes = fault.routes ?? Object.keys(fileRoutes);
    // At once: a pod that never answers costs one deadline, not nine.
    const [connected, ...answers] = await Promise.all([
      fault.connected === false ? null : officer('GET', `/pods/${podId}/members/connected`),
      ...routes.map((route) => fileRoutes[route]!()),
    ]);
    routes.forEach((route, i) => {
      const res = answers[i]!;
      t.equal(res.statusCode, 502, `${route}: 502`);
      t.match(res.json(), { reason: 'ssh_failed', error: fault.error }, route);
      t.notMatch(res.body, /127\.0\.0\.1|localhost/, `${route}: no address`);
      t.notMatch(res.body, new RegExp(`\\b(${pod.port}|${link.port})\\b`), `${route}: no port`);
    });
    if (connected) {
      t.equal(connected.statusCode, 200, 'the connected route always answers');
      t.match(connected.json(), { state: 'unknown', reason: fault.error, sessions: [] });
    }
    t.same(await podState(), before, 'nothing changed on the pod, nothing audited');
  });
}

t.test('SSH lost half-way through an upload or a write: the file keeps its old bytes', async (t) => {
  // Past the handshake and login (a few kB), well before the end of the transfer.
  await link.set({ cutAfter: 256 * 1024 });
  t.teardown(() => link.set('pass'));
  const before = await podState();
  const uploaded = await upload(dir, 'notes.txt', randomBytes(4 * MB));
  t.equal(uploaded.statusCode, 502, uploaded.body);
  t.match(uploaded.json(), { reason: 'ssh_failed', error: /^SSH to the pod failed: / });
  const written = await files('write', { path: FILE, content: 'x'.repeat(MB - 1) });
  t.equal(written.statusCode, 502, written.body);
  t.match(written.json(), { reason: 'ssh_failed' });
  t.ok(link.held.filter((h) => h.mode.startsWith('cut after')).length >= 2, 'both transfers were cut on the wire');
  const after = await podState();
  t.equal(after.notes, OLD, 'the target was never half-replaced');
  t.same(after.audit, before.audit, 'nothing audited');
  // A temporary file cut off with its connection cannot be removed over it; it is hidden and never the target.
  t.same(after.entries.filter((e) => !/^\.quad-[0-9a-f]{16}\.part$/.test(e)), before.entries, 'no other entry appeared');
});

t.test('after recovery the same routes work', async (t) => {
  await link.set('pass');
  const listed = await officer('GET', `/pods/${podId}/files?path=${encodeURIComponent(dir)}`);
  t.equal(listed.statusCode, 200, listed.body);
  t.ok(listed.json().entries.some((e: { name: string }) => e.name === 'notes.txt'));
  t.same((await files('read', { path: FILE })).json(), { path: FILE, size: Buffer.byteLength(OLD), content: OLD });
  t.equal((await files('write', { path: FILE, content: 'new notes' })).statusCode, 200);
  t.equal(await readFile(FILE, 'utf8'), 'new notes');
  const uploaded = await upload(join(dir, 'keep'), 'up.txt', new TextEncoder().encode('uploaded'));
  t.equal(uploaded.statusCode, 200, uploaded.body);
  t.equal(await readFile(join(dir, 'keep', 'up.txt'), 'utf8'), 'uploaded');
  t.match((await officer('GET', `/pods/${podId}/members/connected`)).json(), { state: 'known' });
  t.same((await w.sql("select action from audit_log where action like 'podhost.file_%' order by id")).map((r) => r.action),
    ['podhost.file_write', 'podhost.file_upload'], 'only what was done is audited');
});
