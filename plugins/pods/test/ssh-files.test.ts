// The file routes against a real sshd acting as the pod (test/fakes/pod-ssh) behind the fake provider: list, read,
// write, download, upload, mkdir, rename and delete over SFTP as root with the org's backend key; the size limits
// (413), path checks (400, the protected folders after normalising), a stopped pod (409), another host at the pod's
// address (502 host_key_mismatch: the service pins the host key certified for the pod), a pod made before host keys
// were certified (409 host_key_unknown), SSH failing (502, no address in the answer), an unknown pod (404) and another
// org's officer (403). Files live in the fake pod's own temporary folder, which this test also reads and writes
// directly (the sshd runs on this machine).
import { chmod, chown, lstat, mkdir, readFile, readdir, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { bearer, servePod } from '@quad/core/testing';
import { startPodsWorld } from './world.js';

const MB = 1024 * 1024;
const w = await startPodsWorld(t);
const { quad, org, fake, asOfficer: call } = w;
// The sshd can only start once the org's keys exist (they are made at its first pod).
const podId = await w.createPod();
const pod = await servePod(fake, podId);
t.teardown(() => pod.close());

const files = (op: string, body: unknown) => call('POST', `/pods/${podId}/files/${op}`, body);
const list = (path: string) => call('GET', `/pods/${podId}/files?path=${encodeURIComponent(path)}`);
/** A fresh folder on the pod for one test. */
async function folder(name: string): Promise<string> {
  const path = join(pod.dir, 'files', name);
  await mkdir(path, { recursive: true });
  return path;
}
const audits = async (action: string) => (await w.sql<{ details: Record<string, unknown> }>('select details from audit_log where action = ? order by id', [action])).map((a) => a.details);

t.test('the routes', async (t) => {
  t.same(quad.routes(`/api/compute/:org/pods/:pod_id/files`), [
    'GET /api/compute/:org/pods/:pod_id/files',
    ...['delete', 'download', 'mkdir', 'read', 'rename', 'upload', 'write'].map((op) => `POST /api/compute/:org/pods/:pod_id/files/${op}`),
  ]);
});

t.test('list: folders first, then by name; links are links', async (t) => {
  const dir = await folder('list');
  await mkdir(join(dir, 'zeta'));
  await mkdir(join(dir, 'Alpha'));
  await writeFile(join(dir, 'b.txt'), 'bee');
  await writeFile(join(dir, 'a.txt'), 'a');
  await symlink('/etc', join(dir, 'etc-link'));
  const res = await list(`${dir}/`);
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.equal(body.path, dir, 'the folder, normalised');
  t.same(body.entries.map((e: { name: string; type: string }) => [e.name, e.type]),
    [['Alpha', 'folder'], ['zeta', 'folder'], ['a.txt', 'file'], ['b.txt', 'file'], ['etc-link', 'link']]);
  t.match(body.entries[3], { path: join(dir, 'b.txt'), size: 3, mode: /^0[0-7]{3}$/, modified_at: /^\d{4}-/ });
  t.equal(body.truncated, false);

  t.match((await list(join(dir, 'a.txt'))).json(), { reason: 'not_a_folder' });
  const root = await call('GET', `/pods/${podId}/files`);
  t.equal(root.json().path, '/', 'without a path: /');
  t.ok(root.json().entries.some((e: { name: string; type: string }) => e.name === 'tmp' && e.type === 'folder'));
  t.equal((await list(join(dir, 'missing'))).statusCode, 404);
});

t.test('read and write: a round trip, in place, owner and mode kept', async (t) => {
  const dir = await folder('text');
  const path = join(dir, 'notes.md');
  const text = '# Notes\nünïcode ✓ and a tab\t.\n';
  const written = await files('write', { path, content: text });
  t.equal(written.statusCode, 200, written.body);
  t.same(written.json(), { path, size: Buffer.byteLength(text) });
  t.equal(await readFile(path, 'utf8'), text, 'the pod has it');
  t.same((await files('read', { path })).json(), { path, size: Buffer.byteLength(text), content: text });

  await chmod(path, 0o750);
  await chown(path, 1234, 1235);
  await files('write', { path, content: 'second' });
  t.equal(await readFile(path, 'utf8'), 'second', 'replaced');
  t.match(await stat(path), { uid: 1234, gid: 1235 }, 'a replaced file keeps its owner');
  t.equal((await stat(path)).mode & 0o777, 0o750, 'and its mode');
  const home = await folder('text/home-of-someone');
  await chown(home, 4321, 4322);
  await files('write', { path: join(home, 'new.txt'), content: 'n' });
  t.match(await stat(join(home, 'new.txt')), { uid: 4321, gid: 4322 }, 'a new file belongs to its folder\'s owner');
  t.equal((await stat(join(home, 'new.txt'))).mode & 0o777, 0o644);
  t.same((await readdir(dir)).sort(), ['home-of-someone', 'notes.md'], 'no temporary file left behind');

  t.equal((await files('write', { path: join(dir, 'no/such/folder.txt'), content: 'x' })).statusCode, 404, 'the folder must exist');
  t.match((await files('write', { path: dir, content: 'x' })).json(), { reason: 'not_a_file' }, 'a folder is not replaced by text');
  t.match((await files('write', { path: join(path, 'inside'), content: 'x' })).json(), { reason: 'not_a_folder' }, 'a file is not a folder');
  t.match((await files('read', { path: dir })).json(), { reason: 'not_a_file' });
  await writeFile(join(dir, 'binary.bin'), Buffer.from([0xff, 0xfe, 0x00, 0x80]));
  t.match((await files('read', { path: join(dir, 'binary.bin') })).json(), { reason: 'not_text', error: /download it instead/ });
  t.same((await audits('podhost.file_write')).map((d) => d.path), [path, path, join(home, 'new.txt')], 'each write is audited');
});

t.test('read and write: 1 MB each (413 above)', async (t) => {
  const dir = await folder('limits');
  const exact = await files('write', { path: join(dir, 'exact.txt'), content: 'x'.repeat(MB) });
  t.equal(exact.statusCode, 200, 'exactly 1 MB is written');
  t.equal((await files('read', { path: join(dir, 'exact.txt') })).json().size, MB, 'and read');

  const over = await files('write', { path: join(dir, 'over.txt'), content: 'é'.repeat(MB / 2) + 'x' });
  t.equal(over.statusCode, 413, 'counted in UTF-8 bytes');
  t.match(over.json(), { reason: 'file_too_large' });
  t.notOk(await lstat(join(dir, 'over.txt')).catch(() => null), 'nothing was written');

  await writeFile(join(dir, 'big.txt'), 'y'.repeat(MB + 1));
  const big = await files('read', { path: join(dir, 'big.txt') });
  t.equal(big.statusCode, 413);
  t.match(big.json(), { reason: 'file_too_large', error: /larger than 1 MB/ });
});

t.test('download: streamed as an attachment with its length; 100 MB at most', async (t) => {
  const dir = await folder('download');
  const bytes = randomBytes(3 * MB + 17);
  await writeFile(join(dir, 'weights ü.bin'), bytes);
  const res = await files('download', { path: join(dir, 'weights ü.bin') });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'application/octet-stream');
  t.equal(Number(res.headers['content-length']), bytes.length);
  t.equal(res.headers['content-disposition'], 'attachment; filename="weights _.bin"; filename*=UTF-8\'\'weights%20%C3%BC.bin');
  t.ok(res.rawPayload.equals(bytes), 'every byte');

  await writeFile(join(dir, 'empty'), '');
  const empty = await files('download', { path: join(dir, 'empty') });
  t.equal(empty.statusCode, 200);
  t.equal(empty.rawPayload.length, 0);

  await writeFile(join(dir, 'huge.bin'), '');
  await truncate(join(dir, 'huge.bin'), 100 * MB + 1); // sparse: no disk used
  const huge = await files('download', { path: join(dir, 'huge.bin') });
  t.equal(huge.statusCode, 413);
  t.match(huge.json(), { reason: 'file_too_large' });
  t.equal((await files('download', { path: dir })).statusCode, 400, 'a folder is not downloaded');
});

/** A multipart body as a browser's FormData makes it, parts in the given order. */
async function upload(parts: ([field: 'path', value: string] | [field: 'file', name: string, bytes: Uint8Array])[]) {
  const form = new FormData();
  for (const part of parts) {
    if (part[0] === 'path') form.append('path', part[1]);
    else form.append('file', new Blob([part[2] as BlobPart]), part[1]);
  }
  const request = new Request('http://quad.test/', { method: 'POST', body: form });
  return quad.api.inject({
    method: 'POST', url: `/api/compute/${org.prefix}/pods/${podId}/files/upload`,
    headers: { ...bearer(w.officerToken), 'content-type': request.headers.get('content-type')! },
    payload: Buffer.from(await request.arrayBuffer()),
  });
}

t.test('upload: multipart into a folder', async (t) => {
  const dir = await folder('upload');
  const bytes = randomBytes(2 * MB);
  const res = await upload([['path', `${dir}/`], ['file', 'model.bin', bytes]]);
  t.equal(res.statusCode, 200, res.body);
  t.same(res.json(), { path: join(dir, 'model.bin'), size: bytes.length });
  t.ok((await readFile(join(dir, 'model.bin'))).equals(bytes), 'the pod has every byte');

  const again = await upload([['path', dir], ['file', '../../escape.txt', new TextEncoder().encode('v2')]]);
  t.equal(again.json().path, join(dir, 'escape.txt'), 'only the last part of the name is used');
  t.same((await readdir(dir)).sort(), ['escape.txt', 'model.bin'], 'no temporary file left behind');

  t.match((await upload([['file', 'x.txt', new Uint8Array([1])], ['path', dir]])).json(), { reason: 'path_missing' }, 'the folder comes first');
  t.match((await upload([['path', dir]])).json(), { reason: 'no_file' });
  t.match((await upload([['path', 'relative/dir'], ['file', 'x.txt', new Uint8Array([1])]])).json(), { reason: 'bad_path' });
  t.equal((await upload([['path', join(dir, 'missing')], ['file', 'x.txt', new Uint8Array([1])]])).statusCode, 404);
  t.equal((await upload([['path', join(dir, 'model.bin')], ['file', 'x.txt', new Uint8Array([1])]])).statusCode, 400, 'not a folder');
  const json = await files('upload', { path: dir });
  t.equal(json.statusCode, 415, 'JSON is not an upload');
  t.same((await audits('podhost.file_upload')).map((d) => d.path), [join(dir, 'model.bin'), join(dir, 'escape.txt')]);
});

t.test('mkdir, rename, delete', async (t) => {
  const dir = await folder('tree');
  const made = await files('mkdir', { path: join(dir, 'data') });
  t.same(made.json(), { path: join(dir, 'data') });
  t.ok((await stat(join(dir, 'data'))).isDirectory());
  t.match((await files('mkdir', { path: join(dir, 'data') })).json(), { reason: 'path_exists' });
  t.equal((await files('mkdir', { path: join(dir, 'no/parent') })).statusCode, 404);

  await writeFile(join(dir, 'data', 'a.txt'), 'a');
  const moved = await files('rename', { old_path: join(dir, 'data', 'a.txt'), new_path: join(dir, 'b.txt') });
  t.same(moved.json(), { old_path: join(dir, 'data', 'a.txt'), new_path: join(dir, 'b.txt') });
  t.equal(await readFile(join(dir, 'b.txt'), 'utf8'), 'a');
  await writeFile(join(dir, 'c.txt'), 'c');
  t.match((await files('rename', { old_path: join(dir, 'b.txt'), new_path: join(dir, 'c.txt') })).json(), { reason: 'path_exists' }, 'nothing is overwritten');
  t.equal((await files('rename', { old_path: join(dir, 'nope'), new_path: join(dir, 'x') })).statusCode, 404);
  t.match((await files('rename', { old_path: join(dir, 'c.txt'), new_path: join(dir, 'no/such/c.txt') })).json(), { reason: 'path_not_found', error: /no\/such: no such file/ });

  // A folder with contents, and a link out of it that must be removed, not followed.
  const keep = await folder('keep');
  await writeFile(join(keep, 'precious.txt'), 'stay');
  await mkdir(join(dir, 'data', 'deep', 'deeper'), { recursive: true });
  await writeFile(join(dir, 'data', 'deep', 'deeper', 'f.txt'), 'f');
  await writeFile(join(dir, 'data', 'top.txt'), 't');
  await symlink(keep, join(dir, 'data', 'link-out'));
  const deleted = await files('delete', { path: join(dir, 'data') });
  t.same(deleted.json(), { path: join(dir, 'data'), deleted: 6 });
  t.notOk(await lstat(join(dir, 'data')).catch(() => null), 'the folder is gone');
  t.equal(await readFile(join(keep, 'precious.txt'), 'utf8'), 'stay', 'what a link pointed at is untouched');
  t.same((await files('delete', { path: join(dir, 'c.txt') })).json(), { path: join(dir, 'c.txt'), deleted: 1 });
  t.equal((await files('delete', { path: join(dir, 'c.txt') })).statusCode, 404);

  t.same((await audits('podhost.file_mkdir')).map((d) => d.path), [join(dir, 'data')]);
  t.match(await audits('podhost.file_rename'), [{ pod_id: podId, path: join(dir, 'data', 'a.txt'), new_path: join(dir, 'b.txt') }]);
  t.match(await audits('podhost.file_delete'), [{ pod_id: podId, path: join(dir, 'data') }, { path: join(dir, 'c.txt') }]);
});

t.test('paths: absolute and normalised; the protected folders stay', async (t) => {
  const protectedPaths = ['/', '/workspace', '/root', '/home', '/root/', '//home//', '/tmp/../root', '/workspace/.', '/home/x/..', '/..'];
  for (const path of protectedPaths) {
    const res = await files('delete', { path });
    t.equal(res.statusCode, 400, `delete ${path}`);
    t.match(res.json(), { reason: 'protected_path' });
    t.match((await files('rename', { old_path: path, new_path: '/tmp/moved' })).json(), { reason: 'protected_path' }, `move ${path}`);
  }
  t.ok((await stat('/root')).isDirectory(), '/root is still there');
  for (const path of ['tmp/x', './x', '', 'x/../..', '~/x', '/tmp/a\u0000b']) {
    const res = await files('read', { path });
    t.equal(res.statusCode, 400, `read ${JSON.stringify(path)}`);
    t.match(res.json(), { error: /path/ });
  }
  t.match((await list('relative')).json(), { reason: 'bad_path', field: 'query.path' });
  t.match((await files('rename', { old_path: '/tmp/a', new_path: 'b' })).json(), { reason: 'bad_path', field: 'body.new_path' });
  t.equal((await files('write', { path: '/tmp/x', content: 'x', extra: 1 })).statusCode, 400, 'unknown fields');
  t.equal((await files('read', {})).statusCode, 400);
});

t.test('a stopped pod is 409; an unknown pod 404; only the org\'s officers', async (t) => {
  fake.setStatus(podId, 'EXITED');
  const stopped = await list('/tmp');
  fake.setStatus(podId, 'RUNNING');
  t.equal(stopped.statusCode, 409);
  t.match(stopped.json(), { reason: 'pod_not_running', error: /not running \(EXITED\)/ });

  t.equal((await call('POST', '/pods/nosuchpod/files/read', { path: '/tmp/x' })).statusCode, 404);
  t.equal((await call('GET', '/pods/nosuchpod/files?path=/tmp')).statusCode, 404);
  const stranger = await w.strangerOfficerToken();
  for (const [method, url, body] of [['GET', `/pods/${podId}/files?path=/tmp`], ['POST', `/pods/${podId}/files/delete`, { path: '/tmp/x' }]] as const) {
    t.equal((await call(method, url, body, stranger)).statusCode, 403, `another org's officer: ${method} ${url}`);
    t.equal((await w.call({ method, url: `/api/compute/${org.prefix}${url}`, cookie: w.memberCookie, body })).statusCode, 401, `a member: ${method} ${url}`);
  }
});

t.test('another host at the pod\'s address is refused before the login: its own host key, or another pod\'s certified one', async (t) => {
  const dir = await folder('impostor');
  await writeFile(join(dir, 'secret.txt'), 'only-on-the-pod');
  const other = await w.createPod();
  t.teardown(() => fake.publishSshAt({ host: pod.host, port: pod.port }));
  for (const [name, hostKey] of [['its own host key', 'fresh'], ['another pod\'s certified host key', { of: other }]] as const) {
    // The impostor trusts the org's backend key as the pod does: only the host check keeps the service out.
    const impostor = await servePod(fake, podId, { hostKey });
    const [listed, read, connected] = await Promise.all([
      list(dir), files('read', { path: join(dir, 'secret.txt') }), call('GET', `/pods/${podId}/members/connected`),
    ]);
    await impostor.close();
    for (const res of [listed, read]) {
      t.equal(res.statusCode, 502, `${name}: ${res.body}`);
      t.match(res.json(), { reason: 'host_key_mismatch', error: /^SSH to the pod failed: The pod's SSH host key is not the one Quad certified for it/ });
      t.notMatch(res.body, /only-on-the-pod|secret\.txt/, `${name}: none of the host's data`);
    }
    t.match(connected.json(), { state: 'unknown', reason: /host key is not the one Quad certified/, sessions: [] }, `${name}: the connected route too`);
  }
  fake.publishSshAt({ host: pod.host, port: pod.port });
  t.same((await files('read', { path: join(dir, 'secret.txt') })).json(), { path: join(dir, 'secret.txt'), size: 15, content: 'only-on-the-pod' }, 'the pod itself is accepted');

  // A pod made before host keys were certified: nothing vouches for its host, so the service does not log in.
  await w.sql('update compute_pods set host_key_alias = null, host_public_key = null where organization_id = ? and pod_id = ?', [org.id, other]);
  const unknown = await call('GET', `/pods/${other}/files?path=/tmp`);
  t.equal(unknown.statusCode, 409);
  t.match(unknown.json(), { reason: 'host_key_unknown', error: /recreate the pod/ });
  t.match((await call('POST', `/pods/${other}/files/download`, { path: '/tmp/x' })).json(), { reason: 'host_key_unknown' });
  t.match((await call('GET', `/pods/${other}/members/connected`)).json(), { state: 'unknown', reason: /^The pod was made before Quad certified pods' host keys.*recreate the pod/, sessions: [] });
});

// Last: the pod's sshd goes away.
t.test('SSH failing is 502, without the pod\'s address', async (t) => {
  await pod.close();
  for (const res of [await list('/tmp'), await files('read', { path: '/tmp/x' }), await files('download', { path: '/tmp/x' })]) {
    t.equal(res.statusCode, 502);
    t.match(res.json(), { reason: 'ssh_failed', error: /^SSH to the pod failed: / });
    t.notMatch(res.body, /127\.0\.0\.1|localhost/, 'no address');
    t.notMatch(res.json().error, new RegExp(String(pod.port)), 'no port');
  }
});
