// GET /pods/<pod_id>/members/connected against a real sshd acting as the pod (test/fakes/pod-ssh, its own PID
// namespace, so only this file's sessions are seen). Sessions are started on the pod over SSH as root with a key of
// this test: a member's podhost-login (the image's own, which becomes `su - podhost_<username>`), an officer's
// admin.bashrc shell with PODHOST_USER, and plain root processes, which are not sessions. Usernames map to the member
// who last got a certificate with them (compute_connections rows written here); names come from Discord for at most
// 50 members.
// Unknown, with a reason: a stopped pod, an sshd that is gone or never answers, a pod without podhost-login.
import { createServer, type Socket } from 'node:net';
import t from 'tap';
import ssh2 from 'ssh2';
import { servePod, type FakePodSsh } from '@quad/core/testing';
import { newKeyPair } from '../keys.js';
import { startPodsWorld } from './world.js';

const w = await startPodsWorld(t);
const { quad, org, discord, fake, asOfficer: officer } = w;
// The sshd can only start once the org's keys exist (they are made at its first pod).
const podId = await w.createPod();
/**
 * This test's own root key, to start processes on the pod (the service's key stays inside the service). Made as the
 * service makes keys: ssh2's generateKeyPairSync drops a leading zero byte of an ed25519 public key (1 in 256), which
 * sshd then refuses.
 */
const testKey = newKeyPair('connected-test');

async function startPod(podhostLogin = true): Promise<FakePodSsh> {
  const pod = await servePod(fake, podId, { podhostLogin, extraAuthorizedKeys: [testKey.publicKey] });
  t.teardown(() => pod.close());
  return pod;
}

/** Runs a command on the pod as root with the test's key; background processes outlive it. */
function onPod(pod: FakePodSsh, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    client.on('error', reject).on('ready', () => {
      client.exec(command, (err, channel) => {
        if (err) return reject(err);
        channel.resume().on('close', () => { client.end(); resolve(); });
      });
    }).connect({ host: pod.host, port: pod.port, username: 'root', privateKey: testKey.privateKey, hostVerifier: () => true });
  });
}
/**
 * Starts a process in the background and waits (up to 4 s) until its command line starts with `shows`: a script
 * that execs under another name is only a session once it has.
 */
const background = (command: string, shows: string) =>
  `nohup ${command} >/dev/null 2>&1 & pid=$!; for i in $(seq 200); do tr '\\0' ' ' < /proc/$pid/cmdline | grep -q '^${shows}' && break; sleep 0.02; done`;
/** The image's podhost-login, as a member's forced command runs it; its login shell reads a stdin that stays open. */
const memberSession = (username: string) =>
  background(`bash -c 'exec /usr/local/bin/podhost-login ${username} < <(sleep 3600)'`, `su - podhost_${username}`);
const officerShell = (username: string) =>
  `PODHOST_USER=${username} ${background(`bash -c 'exec -a "bash --rcfile /etc/podhost/admin.bashrc" sleep 3600'`, 'bash --rcfile')}`;
const rootProcess = (env = '') => `${env} ${background('sleep 3600', 'sleep 3600')}`;
async function connection(username: string, chatUserId: string, isAdmin: boolean, minutesAgo: number, onPodId = podId) {
  await w.sql(`insert into compute_connections (organization_id, pod_id, chat_user_id, username, is_admin, created_at)
    values (?, ?, ?, ?, ?, now() - make_interval(mins => ?))`, [org.id, onPodId, chatUserId, username, isAdmin, minutesAgo]);
}
const connected = () => officer('GET', `/pods/${podId}/members/connected`);

const pod = await startPod();

t.test('the route', async (t) => {
  t.ok(quad.routes('/api/compute').includes('GET /api/compute/:org/pods/:pod_id/members/connected'));
});

t.test('no one on the pod: known, no sessions; root logins are not sessions', async (t) => {
  await onPod(pod, rootProcess());
  const res = await connected();
  t.equal(res.statusCode, 200);
  t.same(res.json(), { state: 'known', reason: null, sessions: [] });
});

t.test('members\' podhost-login sessions and officers\' shells, mapped to the member who last had the username', async (t) => {
  const someoneEarlier = discord.addUser({ username: 'alice_old' });
  await connection('alice', someoneEarlier.id, false, 60);
  await connection('alice', w.member.id, false, 5); // the newest certificate with the name wins
  await connection('alice', w.officer.id, false, 1, 'another-pod'); // another pod's rows do not count
  await connection('carol', w.officer.id, true, 3);
  await onPod(pod, [memberSession('alice'), memberSession('alice'), memberSession('dave'), officerShell('carol'), rootProcess('PODHOST_USER=eve')].join('\n'));

  const res = await connected();
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.match(body, { state: 'known', reason: null });
  t.same(body.sessions.map((s: { username: string; is_admin: boolean; chat_user_id: string | null; name: string | null }) => [s.username, s.is_admin, s.chat_user_id, s.name]), [
    ['alice', false, w.member.id, 'bob'],
    ['alice', false, w.member.id, 'bob'],
    ['carol', true, w.officer.id, 'Ada Lovelace'],
    ['dave', false, null, null],
  ], 'two sessions of alice, carol\'s root shell, dave with no certificate here; eve\'s plain process is not a session');
  for (const s of body.sessions) t.ok(Number.isInteger(s.seconds) && s.seconds >= 0, `seconds of ${s.username}`);
});

t.test('names: at most 50 per request; null when Discord fails', async (t) => {
  const usernames = Array.from({ length: 52 }, (_, i) => `m${String(i).padStart(2, '0')}`);
  for (const username of usernames) {
    const user = discord.addUser({ username: `${username}_discord` });
    discord.addMember(w.guildId, user.id);
    await connection(username, user.id, false, 1);
  }
  await onPod(pod, usernames.map(memberSession).join('\n'));
  const sessions: { username: string; chat_user_id: string | null; name: string | null }[] = (await connected()).json().sessions;
  const mapped = sessions.filter((s) => s.chat_user_id !== null);
  t.equal(mapped.length, 55, 'every mapped session keeps its chat user id');
  t.equal(new Set(mapped.map((s) => s.chat_user_id)).size, 54);
  const named = new Set(mapped.filter((s) => s.name !== null).map((s) => s.chat_user_id));
  t.equal(named.size, 50, 'names of 50 members');

  discord.down(true);
  t.teardown(() => discord.down(false));
  const down = await connected();
  t.equal(down.statusCode, 200, 'Discord failing does not fail the route');
  t.match(down.json(), { state: 'known' });
  t.ok(down.json().sessions.every((s: { name: string | null }) => s.name === null), 'names are null');
});

t.test('unknown: a stopped pod', async (t) => {
  fake.setStatus(podId, 'EXITED');
  const res = await connected();
  fake.setStatus(podId, 'RUNNING');
  t.equal(res.statusCode, 200);
  t.same(res.json(), { state: 'unknown', reason: 'The pod is not running (EXITED): start it first', sessions: [] });
});

t.test('unknown: an sshd that accepts and never answers, within the 5 second limit', async (t) => {
  const sockets: Socket[] = [];
  const silent = createServer((socket) => sockets.push(socket.on('error', () => {})));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => silent.close(resolve));
  });
  fake.publishSshAt({ host: '127.0.0.1', port: (silent.address() as { port: number }).port });
  const res = await connected();
  fake.publishSshAt({ host: pod.host, port: pod.port });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { state: 'unknown', reason: 'SSH to the pod failed: The pod did not answer over SSH within 5 seconds', sessions: [] });
});

t.test('unknown: a pod without podhost-login, then an sshd that is gone', async (t) => {
  await pod.close();
  const bare = await startPod(false);
  const res = await connected();
  t.equal(res.statusCode, 200);
  t.same(res.json(), { state: 'unknown', reason: 'The pod has no /usr/local/bin/podhost-login: its image does not follow the pod image contract', sessions: [] });

  await bare.close();
  const gone = await connected();
  t.equal(gone.statusCode, 200);
  t.match(gone.json(), { state: 'unknown', reason: /^SSH to the pod failed: The pod refused the SSH connection$/, sessions: [] });
  t.notMatch(gone.body, /127\.0\.0\.1/, 'no address');
});

t.test('404 for a pod not made here; only the org\'s officers', async (t) => {
  t.equal((await officer('GET', '/pods/nosuchpod/members/connected')).statusCode, 404);
  t.equal((await officer('GET', `/pods/${podId}/members/connected`, undefined, await w.strangerOfficerToken())).statusCode, 403);
  t.equal((await w.call({ url: `/api/compute/${org.prefix}/pods/${podId}/members/connected`, cookie: w.memberCookie })).statusCode, 401);
});
