// Keys, certificates and the member routes: the org's key pairs (made once, at the first pod, sealed; host_ca made
// later for an org that lacks it), the pod image contract's environment with each pod's certified host key (a secret
// no answer carries), a member's (no forwarding) and an officer's certificate as OpenSSH reads it (ssh-keygen -L),
// what the connect route gives to check the pod's host, access, the states that refuse a certificate (a pod made
// before host keys were certified among them), connection rows and their 90 days, the CLI sign-in and its token.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bearer, cookieFrom } from '@quad/core/testing';
import { startPodsWorld } from './world.js';

const run = promisify(execFile);
const SSH = { host: '127.0.0.1', port: 2201 };
const w = await startPodsWorld(t, { config: { ACCOUNTS_BASE_URL: 'http://quad.test' } });
const { quad, org, discord, fake, asOfficer: officer } = w;
fake.publishSshAt(SSH);
const base = `/api/compute/${org.prefix}`;
const asMember = (method: string, url: string, body?: unknown, cookie = w.memberCookie) => w.call({ method, url: `${base}${url}`, cookie, body });
const dir = await mkdtemp(join(tmpdir(), 'quad-connect-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

/** A member's key pair made by OpenSSH itself; its public part. */
async function memberKey(name: string, type = ['-t', 'ed25519']): Promise<string> {
  await run('ssh-keygen', ['-q', ...type, '-N', '', '-C', name, '-f', join(dir, name)]);
  return readFile(join(dir, `${name}.pub`), 'utf8');
}
/** What `ssh-keygen -L` reads in a certificate. */
async function describe(certificate: string): Promise<string> {
  const file = join(dir, `cert-${Math.random().toString(36).slice(2)}.pub`);
  await writeFile(file, `${certificate}\n`);
  return (await run('ssh-keygen', ['-L', '-f', file])).stdout;
}

/** The SHA256 fingerprint ssh-keygen gives a public key. */
async function fingerprint(publicKey: string): Promise<string> {
  return (await runWithInput('ssh-keygen', ['-l', '-f', '-'], publicKey)).split(' ')[1]!;
}
/** The public half of an OpenSSH private key, as ssh-keygen -y derives it (type and base64, no comment). */
async function publicOf(privateKey: string): Promise<string> {
  const file = join(dir, `key-${Math.random().toString(36).slice(2)}`);
  await writeFile(file, privateKey, { mode: 0o600 });
  return (await run('ssh-keygen', ['-y', '-f', file])).stdout.trim().split(' ').slice(0, 2).join(' ');
}
const escape = (text: string) => text.replace(/[+/.*?()[\]{}|^$\\]/g, '\\$&');

const memberPublicKey = await memberKey('member');
let shared = '';
let privateOnly = '';

t.test('the first pods make the org\'s keys once, and every pod gets the image contract\'s environment', async (t) => {
  const made = await Promise.all([1, 2].map((i) => officer('POST', '/pods', { gpu_type_id: 'RTX', name: `pod${i}`, is_public: i === 1 })));
  t.same(made.map((r) => r.statusCode), [201, 201]);
  [shared, privateOnly] = made.map((r) => r.json().pod_id);
  const keys = await w.sql('select kind, public_key, private_key_sealed from compute_keys where organization_id = ? order by kind', [org.id]);
  t.same(keys.map((k) => k.kind), ['backend', 'host_ca', 'user_ca'], 'one pair of each kind, though two first pods raced');
  for (const key of keys) {
    t.match(key.public_key, /^ssh-ed25519 AAAA/);
    t.notMatch(key.private_key_sealed, /PRIVATE KEY|AAAA/, 'the private part is sealed');
  }
  const [backend, hostCa, userCa] = keys.map((k) => k.public_key as string);
  const rows = await w.sql<{ pod_id: string; host_key_alias: string; host_public_key: string }>('select pod_id, host_key_alias, host_public_key from compute_pods where organization_id = ?', [org.id]);
  for (const pod of fake.pods) {
    t.equal(pod.env.PODHOST_SSH_PUBLIC_KEY, backend);
    t.equal(pod.env.PODHOST_SSH_CA_PUBLIC_KEY, userCa);
    t.equal(pod.env.PODHOST_SETUP, '2');
    // The pod's host key: certified by the org's host CA for this create's name alone, its public part on the row.
    const row = rows.find((r) => r.pod_id === pod.id)!;
    t.equal(row.host_key_alias, `podhost-${pod.env.PODHOST_CREATE_ID}`);
    t.match(pod.env.PODHOST_SSH_HOST_KEY, /^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+\n-----END OPENSSH PRIVATE KEY-----\n?$/);
    t.equal(await publicOf(pod.env.PODHOST_SSH_HOST_KEY!), row.host_public_key.split(' ').slice(0, 2).join(' '), 'the row pins the public half of the key the pod serves');
    const read = await describe(pod.env.PODHOST_SSH_HOST_CERTIFICATE!);
    t.match(read, /Type: ssh-ed25519-cert-v01@openssh.com host certificate/);
    t.match(read, new RegExp(`Public key: ED25519-CERT ${escape(await fingerprint(row.host_public_key))}`), 'for the pinned key');
    t.match(read, new RegExp(`Signing CA: ED25519 ${escape(await fingerprint(hostCa!))}`), 'signed by the org\'s host CA');
    t.match(read, new RegExp(`Principals: \n\\s+${row.host_key_alias}\n\\s+Critical`), 'one principal: the pod\'s name');
    t.match(read, /Valid: from \d{4}-\d\d-\d\dT[\d:]+ to 9999-12-31T/);
  }
  t.equal(new Set(rows.map((r) => r.host_key_alias)).size, 2);
  t.equal(new Set(rows.map((r) => r.host_public_key)).size, 2, 'each pod its own host key');
  t.same((await officer('GET', `/pods/${shared}`)).json().env_names, [], 'the contract\'s variables are not the officer\'s env');
  const again = await officer('POST', '/pods', { gpu_type_id: 'RTX', name: 'pod3' });
  t.equal(fake.pods.at(-1)!.env.PODHOST_SSH_CA_PUBLIC_KEY, userCa, 'a later pod trusts the same CA');
  // The host private key is the pod's alone: no answer carries it.
  const secrets = fake.pods.map((p) => p.env.PODHOST_SSH_HOST_KEY!);
  const answers = { 'the creates': [...made, again], 'GET /pods': [await officer('GET', '/pods')], 'GET /pods/<pod_id>': [await officer('GET', `/pods/${shared}`)], 'PUT /pods/<pod_id>': [await officer('PUT', `/pods/${shared}`, { is_public: true })] };
  for (const [name, list] of Object.entries(answers)) {
    for (const res of list) {
      t.notMatch(res.body, /PRIVATE KEY|PODHOST_SSH_HOST_KEY/, `${name}: no host private key`);
      t.notOk(secrets.some((secret) => res.body.includes(secret.split('\n')[1]!)), `${name}: not a line of it`);
    }
  }
  t.equal((await officer('POST', `/pods/${again.json().pod_id}/action`, { action: 'terminate' })).statusCode, 200);
});

t.test('an org whose keys predate the host CA gets one at its next need; the others stay', async (t) => {
  const before = await w.sql('select kind, public_key, private_key_sealed from compute_keys where organization_id = ? order by kind', [org.id]);
  await w.sql(`delete from compute_keys where organization_id = ? and kind = 'host_ca'`, [org.id]);
  const made = await officer('POST', '/pods', { gpu_type_id: 'RTX', name: 'pod4' });
  t.equal(made.statusCode, 201, made.body);
  const after = await w.sql('select kind, public_key, private_key_sealed from compute_keys where organization_id = ? order by kind', [org.id]);
  t.same(after.map((k) => k.kind), ['backend', 'host_ca', 'user_ca']);
  t.same([after[0], after[2]], [before[0], before[2]], 'backend and user_ca unchanged');
  t.not(after[1].public_key, before[1].public_key, 'a new host CA');
  t.match(await describe(fake.pods.at(-1)!.env.PODHOST_SSH_HOST_CERTIFICATE!), new RegExp(`Signing CA: ED25519 ${escape(await fingerprint(after[1].public_key))}`));
  t.equal((await officer('POST', `/pods/${made.json().pod_id}/action`, { action: 'terminate' })).statusCode, 200);
  // The pods made above were certified by the host CA just replaced: it comes back for the tests below.
  await w.sql(`update compute_keys set public_key = ?, private_key_sealed = ? where organization_id = ? and kind = 'host_ca'`, [before[1].public_key, before[1].private_key_sealed, org.id]);
});

t.test('a member\'s certificate: one pod, 12 hours, forced into podhost-login', async (t) => {
  const res = await asMember('POST', `/me/pods/${shared}/connect`, { public_key: memberPublicKey });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.match(body, { pod_id: shared, host: SSH.host, port: SSH.port, user: 'root', username: w.member.username, user_folder: `/workspace/${w.member.username}`, is_admin: false, principal: `gf-${shared}` });
  const validFor = Date.parse(body.valid_before) - Date.parse(body.valid_after);
  t.equal(validFor, (12 * 60 + 5) * 60_000, 'from 5 minutes before issue to 12 hours after');
  t.ok(Math.abs(Date.parse(body.valid_after) + 5 * 60_000 - Date.now()) < 60_000);
  const read = await describe(body.certificate);
  t.match(read, /Type: ssh-ed25519-cert-v01@openssh.com user certificate/);
  t.match(read, new RegExp(`Principals: \\n\\s+gf-${shared}\\n`));
  t.match(read, new RegExp(`force-command /usr/local/bin/podhost-login ${w.member.username}\\n`));
  t.match(read, /Extensions: \n\s+permit-pty\n\n?$/, 'a terminal only: no port, agent or X11 forwarding');
  t.notMatch(read, /forwarding/);
  const ca = (await w.sql('select public_key from compute_keys where organization_id = ? and kind = ?', [org.id, 'user_ca']))[0].public_key;
  t.match(read, new RegExp(`Signing CA: ED25519 ${escape(await fingerprint(ca))}`), 'signed by the org\'s user CA');
  // What checks the pod's host: the org's host CA, for the name on the pod's host certificate.
  const [pod] = await w.sql('select host_key_alias from compute_pods where organization_id = ? and pod_id = ?', [org.id, shared]);
  const hostCa = (await w.sql('select public_key from compute_keys where organization_id = ? and kind = ?', [org.id, 'host_ca']))[0].public_key;
  t.match(body, { host_ca: hostCa, host_key_alias: pod.host_key_alias });
  t.match(body.host_key_alias, /^podhost-[0-9a-f-]{36}$/);

  const rows = await w.sql('select pod_id, chat_user_id, username, is_admin from compute_connections where organization_id = ?', [org.id]);
  t.same(rows, [{ pod_id: shared, chat_user_id: w.member.id, username: w.member.username, is_admin: false }]);
  const audit = await w.sql(`select actor, details from audit_log where organization_id = ? and action = 'podhost.connect'`, [org.id]);
  t.equal(audit.length, 1);
  t.match(audit[0], { actor: `member:${w.member.id}`, details: { pod_id: shared, username: w.member.username, is_admin: false, via: 'session' } });
});

t.test('an officer gets root with no forced command, on any pod of the org', async (t) => {
  const cookie = await w.sessionOf(w.officer);
  const res = await asMember('POST', `/me/pods/${privateOnly}/connect`, { public_key: memberPublicKey }, cookie);
  t.equal(res.statusCode, 200, res.body);
  t.match(res.json(), { is_admin: true, user_folder: '/workspace' });
  const read = await describe(res.json().certificate);
  t.match(read, /Critical Options: \(none\)/);
  t.match(read, /Extensions: \n\s+permit-X11-forwarding\n\s+permit-agent-forwarding\n\s+permit-port-forwarding\n\s+permit-pty\n\s+permit-user-rc\n/, 'OpenSSH\'s defaults');
  t.match(res.json(), { host_key_alias: /^podhost-/, host_ca: /^ssh-ed25519 / });
  const listed = (await asMember('GET', '/me/pods', undefined, cookie)).json().pods;
  t.same(listed.map((p: { pod_id: string; access: string }) => [p.pod_id, p.access]).sort(), [[shared, 'officer'], [privateOnly, 'officer']].sort());
});

t.test('access: public, allowed_users, or refused', async (t) => {
  t.same((await asMember('GET', '/me/pods')).json().pods.map((p: { pod_id: string; access: string }) => [p.pod_id, p.access]), [[shared, 'public']]);
  const refused = await asMember('POST', `/me/pods/${privateOnly}/connect`, { public_key: memberPublicKey });
  t.equal(refused.statusCode, 403);
  t.equal(refused.json().reason, 'no_pod_access');
  t.equal((await officer('PUT', `/pods/${privateOnly}`, { allowed_users: [w.member.id] })).statusCode, 200);
  t.equal((await asMember('POST', `/me/pods/${privateOnly}/connect`, { public_key: memberPublicKey })).statusCode, 200);
  t.same((await asMember('GET', '/me/pods')).json().pods.map((p: { access: string }) => p.access).sort(), ['allowed', 'public']);
  t.equal((await asMember('POST', '/me/pods/nosuchpod/connect', { public_key: memberPublicKey })).statusCode, 404);
});

t.test('refusals: a bad key, a stopped or gone pod, a member who left, no credential', async (t) => {
  for (const public_key of ['not a key', 'ssh-ed25519 AAAA', `ssh-rsa ${Buffer.alloc(64).toString('base64')}`]) {
    const res = await asMember('POST', `/me/pods/${shared}/connect`, { public_key });
    t.equal(res.statusCode, 400, public_key);
    t.equal(res.json().reason, 'invalid_public_key');
  }
  const smallRsa = await memberKey('rsa1024', ['-t', 'rsa', '-b', '1024']);
  t.match((await asMember('POST', `/me/pods/${shared}/connect`, { public_key: smallRsa })).json(), { reason: 'invalid_public_key', error: /1024 bits/ });

  fake.setStatus(shared, 'EXITED');
  const stopped = await asMember('POST', `/me/pods/${shared}/connect`, { public_key: memberPublicKey });
  t.equal(stopped.statusCode, 409);
  t.match(stopped.json(), { reason: 'pod_not_running', error: /not running \(EXITED\)/ });
  t.same((await asMember('GET', '/me/pods')).json().pods.map((p: { pod_id: string }) => p.pod_id), [privateOnly], 'a stopped pod is not listed');
  fake.setStatus(shared, 'RUNNING');
  fake.failNext(500);
  t.equal((await asMember('POST', `/me/pods/${shared}/connect`, { public_key: memberPublicKey })).statusCode, 424);
  fake.remove(privateOnly);
  t.match((await asMember('POST', `/me/pods/${privateOnly}/connect`, { public_key: memberPublicKey })).json(), { reason: 'pod_gone' });

  // A pod made before host keys were certified: its host cannot be checked, so no certificate for it.
  const saved = (await w.sql('select host_key_alias, host_public_key from compute_pods where organization_id = ? and pod_id = ?', [org.id, shared]))[0];
  await w.sql('update compute_pods set host_key_alias = null, host_public_key = null where organization_id = ? and pod_id = ?', [org.id, shared]);
  const unchecked = await asMember('POST', `/me/pods/${shared}/connect`, { public_key: memberPublicKey });
  await w.sql('update compute_pods set host_key_alias = ?, host_public_key = ? where organization_id = ? and pod_id = ?', [saved.host_key_alias, saved.host_public_key, org.id, shared]);
  t.equal(unchecked.statusCode, 409);
  t.match(unchecked.json(), { reason: 'host_key_unknown', error: /recreate the pod/ });

  const leaver = discord.addUser({ username: 'leaver' });
  discord.addMember(w.guildId, leaver.id);
  const cookie = await w.sessionOf(leaver);
  t.equal((await asMember('POST', `/me/pods/${shared}/connect`, { public_key: memberPublicKey }, cookie)).statusCode, 200);
  discord.removeMember(w.guildId, leaver.id);
  const gone = await asMember('POST', `/me/pods/${shared}/connect`, { public_key: memberPublicKey }, cookie);
  t.equal(gone.statusCode, 403, 'membership is asked of Discord at each connect');
  t.equal((await w.call({ method: 'GET', url: `${base}/me/pods` })).statusCode, 401);
  t.equal((await w.call({ method: 'GET', url: `${base}/me/pods`, token: w.officerToken })).statusCode, 401, 'an officer\'s platform token is not a member credential');
});

t.test('connection rows older than 90 days of the org go at each new row; terminate deletes the pod\'s', async (t) => {
  const stranger = await w.strangerOfficerToken();
  t.ok(stranger);
  const otherOrg = (await w.sql(`select id from organizations where prefix = 'other'`))[0].id;
  for (const orgId of [org.id, otherOrg]) {
    await w.sql(`insert into compute_connections (organization_id, pod_id, chat_user_id, username, is_admin, created_at) values (?, 'old', '1', 'old', false, now() - interval '91 days')`, [orgId]);
  }
  await w.sql(`insert into compute_connections (organization_id, pod_id, chat_user_id, username, is_admin, created_at) values (?, 'recent', '1', 'recent', false, now() - interval '89 days')`, [org.id]);
  t.equal((await asMember('POST', `/me/pods/${shared}/connect`, { public_key: memberPublicKey })).statusCode, 200);
  const left = await w.sql('select organization_id, pod_id from compute_connections where pod_id in (?, ?)', ['old', 'recent']);
  t.same(left.map((r) => [r.organization_id, r.pod_id]).sort(), [[org.id, 'recent'], [otherOrg, 'old']].sort(), 'only this org\'s old rows');
  t.equal((await officer('POST', `/pods/${shared}/action`, { action: 'terminate' })).statusCode, 200);
  t.equal((await w.sql('select count(*)::int as n from compute_connections where organization_id = ? and pod_id = ?', [org.id, shared]))[0].n, 0);
});

t.test('CLI sign-in: a token shown once, that connects; a new sign-in revokes the old one', async (t) => {
  const pod = (await officer('POST', '/pods', { gpu_type_id: 'RTX', name: 'cli-pod', is_public: true })).json().pod_id;
  async function signIn(userId: string, beforeCallback?: () => Promise<unknown>): Promise<{ status: number; token: string | null; body: string; headers: Record<string, unknown> }> {
    const start = await quad.api.inject(`${base}/cli/login`);
    t.equal(start.statusCode, 302);
    const authorize = new URL(start.headers.location as string);
    t.equal(authorize.searchParams.get('redirect_uri'), 'http://quad.test/api/compute/cli/callback');
    discord.signInAs(userId);
    const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
    await beforeCallback?.();
    const page = await quad.api.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: cookieFrom(start) } });
    return { status: page.statusCode, token: /<code id="token">(plat_[^<]+)<\/code>/.exec(page.body)?.[1] ?? null, body: page.body, headers: page.headers };
  }
  const first = await signIn(w.member.id);
  t.equal(first.status, 200, first.body);
  t.ok(first.token, 'the page shows the token');
  t.match(first.headers, { 'cache-control': 'no-store', 'content-type': /text\/html/ });
  t.match(first.body, /podhost login/);
  const cli = (method: string, url: string, token: string, body?: unknown) => quad.api.inject({ method: method as 'GET', url: `${base}${url}`, headers: bearer(token), ...(body !== undefined && { payload: body as object }) });
  t.same((await cli('GET', '/me/pods', first.token!)).json().pods.map((p: { pod_id: string }) => p.pod_id), [pod]);
  const viaCli = await cli('POST', `/me/pods/${pod}/connect`, first.token!, { public_key: memberPublicKey });
  t.equal(viaCli.statusCode, 200);
  const audit = await w.sql(`select action, details from audit_log where organization_id = ? and action in ('podhost.cli_token', 'podhost.connect') order by id desc limit 2`, [org.id]);
  t.match(audit, [{ action: 'podhost.connect', details: { via: 'cli' } }, { action: 'podhost.cli_token', details: { chat_user_id: w.member.id } }]);

  const second = await signIn(w.member.id);
  t.ok(second.token && second.token !== first.token);
  t.equal((await cli('GET', '/me/pods', first.token!)).statusCode, 401, 'the previous CLI token is revoked');
  t.equal((await cli('GET', '/me/pods', second.token!)).statusCode, 200);

  const outsider = discord.addUser({ username: 'outsider' });
  const refused = await signIn(outsider.id);
  t.equal(refused.status, 403, 'not on the org\'s server: no token');
  t.equal(refused.token, null);
  discord.addMember(w.guildId, outsider.id);
  const cookieFresh = await signIn(outsider.id);
  discord.removeMember(w.guildId, outsider.id);
  t.equal((await cli('GET', '/me/pods', cookieFresh.token!)).statusCode, 403, 'a CLI token stops working when its member leaves');

  const replay = await quad.api.inject({ url: '/api/compute/cli/callback?code=x&state=y' });
  t.equal(replay.statusCode, 403, 'a callback without its sign-in\'s state is refused');
  const switchedOff = await signIn(w.member.id, () => w.sql(`update organizations set modules = modules || '{"podhost": false}' where id = ?`, [org.id]));
  t.equal(switchedOff.status, 404, 'pods switched off during the sign-in: no token');
  t.equal(switchedOff.token, null);
});

async function runWithInput(cmd: string, args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(cmd, args, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin!.end(input);
  });
}
