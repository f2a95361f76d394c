// The pod image (plugins/pods/image) on its own, against the real OpenSSH: its Dockerfile linted (rcjsuen's
// dockerfile-utils, what the VS Code Docker extension runs; a broken copy is reported, so the check can fail); its
// sshd_config accepted by `sshd -t` where the image puts it, with every setting of the contract in `sshd -T`; its
// entrypoint writing the pod's keys from the environment and refusing a wrong one; podhost-login putting members in
// their own accounts and folders, across a restart that loses the accounts but keeps the folders; and the sessions
// the connected route reads (plugins/pods/ssh/sessions.ts): a member's login, an officer's terminal. The pod is
// test/fakes/pod-ssh (the image's rootfs/ on a real sshd), its keys and certificates made as Quad makes them.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { validate } from 'dockerfile-utils';
import { startPodSsh, until } from '@quad/core/testing';
import { issueCertificate, issueHostCertificate, parsePublicKey } from '../certificates.js';
import { newKeyPair } from '../keys.js';
import { SESSIONS_COMMAND, parseSessions } from '../ssh/sessions.js';

const IMAGE = fileURLToPath(new URL('../image/', import.meta.url));
const CONTRACT = fileURLToPath(new URL('../image-contract.ts', import.meta.url));
const POD_ID = 'imagepod01';
const HOST_NAME = 'podhost-image-test';

/** An ed25519 pair as Quad makes its keys (ssh2's generator drops a leading zero byte of one public key in 256). */
const keyPair = () => {
  const pair = newKeyPair('image-test');
  return { public: pair.publicKey, private: pair.privateKey };
};
const backend = keyPair();
const userCa = keyPair();
const hostCa = keyPair();
const hostKey = keyPair();
const hostCertificate = issueHostCertificate({ hostPublicKey: hostKey.public, principal: HOST_NAME, caPrivateKey: hostCa.private, keyId: 'image-test' });
const pod = await startPodSsh({
  podId: POD_ID, backendPublicKey: backend.public, userCaPublicKey: userCa.public,
  hostKey: { privateKey: hostKey.private, certificate: hostCertificate },
});
t.teardown(() => pod.close());

// The client's side: ssh trusts the host CA for the pod's certified name only, as the podhost CLI does.
const home = await mkdtemp(join(tmpdir(), 'quad-image-client-'));
t.teardown(() => rm(home, { recursive: true, force: true }));
await writeFile(join(home, 'known_hosts'), `@cert-authority * ${hostCa.public}\n`);

interface Login { name: string; options: string[] }
interface Run { code: number | null; stdout: string; stderr: string }

async function loginWith(name: string, privateKey: string, certificate?: string): Promise<Login> {
  const key = join(home, name);
  await writeFile(key, privateKey, { mode: 0o600 });
  const options = ['-i', key, '-o', 'IdentitiesOnly=yes'];
  if (certificate) {
    await writeFile(`${key}-cert.pub`, `${certificate}\n`);
    options.push('-o', `CertificateFile=${key}-cert.pub`);
  }
  return { name, options };
}
/** A member's or an officer's certificate, as Quad's connect route issues it (key ID `<org>:<chat user id>:<username>[:root]`). */
async function personLogin(username: string, officer = false): Promise<Login> {
  const key = keyPair();
  const { certificate } = issueCertificate({
    podId: POD_ID, key: parsePublicKey(key.public), caPrivateKey: userCa.private,
    keyId: `acm:${1000 + username.length}:${username}${officer ? ':root' : ''}`, memberUsername: officer ? null : username,
  });
  return loginWith(`${username}${officer ? '-officer' : ''}`, key.private, certificate);
}

/** ssh's options (and sftp's: the same, the port given as an option). */
function sshArgs(login: Login, extra: string[]): string[] {
  return [
    ...login.options, '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${join(home, 'known_hosts')}`,
    '-o', 'GlobalKnownHostsFile=/dev/null', '-o', `HostKeyAlias=${HOST_NAME}`, '-o', 'LogLevel=ERROR', '-o', `Port=${pod.port}`, ...extra,
  ];
}
function collect(child: ChildProcess, stdin?: string): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => { stdout += d; });
  child.stderr!.on('data', (d) => { stderr += d; });
  child.stdin!.end(stdin ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
/** `ssh root@pod <command>` with a login (a member's certificate forces podhost-login, which runs the command). */
const ssh = (login: Login, command: string, stdin?: string) => collect(spawn('ssh', sshArgs(login, ['root@127.0.0.1', command])), stdin);
/** A terminal session (`ssh -tt`), open until the returned function ends it. */
function terminal(t: Test, login: Login): { output(): string } {
  const child = spawn('ssh', sshArgs(login, ['-tt', 'root@127.0.0.1']), { stdio: 'pipe' });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const ended = new Promise((resolve) => child.on('close', resolve));
  t.teardown(() => { child.kill(); return ended; });
  return { output: () => output };
}

const root = await loginWith('backend', backend.private);
const asRoot = async (command: string) => {
  const res = await ssh(root, command);
  if (res.code !== 0) throw new Error(`on the pod as root: ${command}: ${res.code} ${res.stderr}`);
  return res.stdout;
};

t.test('the Dockerfile lints clean with dockerfile-utils, and a broken copy does not', async (t) => {
  const dockerfile = await readFile(join(IMAGE, 'Dockerfile'), 'utf8');
  t.same(validate(dockerfile), [], 'no error, no warning');
  const broken = dockerfile.replace('COPY --chmod=0755', 'COPY --chmodd=0755');
  t.not(broken, dockerfile);
  t.match(validate(broken), [{ severity: 1, message: 'Unknown flag: chmodd' }], 'a mistyped flag is an error');

  // What the Dockerfile promises, read from it: the image's files, sshd without its own host keys, ps, no sudo.
  t.match(dockerfile, /^FROM \$\{BASE_IMAGE\}$/m);
  t.match(dockerfile, /^ARG BASE_IMAGE=nvidia\/cuda:[\w.-]+$/m, 'a tagged CUDA base');
  t.match(dockerfile, /^COPY --chmod=0755 rootfs\/usr\/local\/ \/usr\/local\/$/m);
  t.match(dockerfile, /^COPY rootfs\/etc\/ \/etc\/$/m);
  t.match(dockerfile, /openssh-server .*procps/);
  t.match(dockerfile, /rm -f \/etc\/ssh\/ssh_host_\*/);
  const installed = /apt-get install([^&]*)&&/.exec(dockerfile)?.[1] ?? '';
  t.match(installed, /openssh-server/);
  t.notMatch(installed, /\bsudo\b/, 'sudo is not installed');
  t.match(dockerfile, /^EXPOSE 22$/m);
  const entrypoint = /^ENTRYPOINT \["([^"]+)"\]$/m.exec(dockerfile)?.[1];
  t.equal(entrypoint, '/usr/local/sbin/podhost-entrypoint');
  t.ok((await stat(join(IMAGE, 'rootfs', entrypoint!))).mode & 0o100, 'the entrypoint is in rootfs/ and executable');
});

t.test('sshd -t accepts the image\'s sshd_config where the image puts it; sshd -T has every setting of the contract', async (t) => {
  t.equal(await asRoot('sshd -t && echo config-ok'), 'config-ok\n');
  const effective = new Set((await asRoot('sshd -T')).split('\n'));
  // The settings the contract names (image-contract.ts: `Keyword value` in its header), as sshd -T prints them.
  const contract = [...(await readFile(CONTRACT, 'utf8')).matchAll(/`([A-Z][A-Za-z0-9]+) ([^`]+)`/g)].map((m) => `${m[1]!.toLowerCase()} ${m[2]}`);
  t.same(contract.sort(), [
    'allowstreamlocalforwarding no', 'gatewayports no', 'permitopen localhost:* 127.0.0.1:* [::1]:*', 'permittunnel no', 'x11forwarding no',
  ]);
  for (const line of [
    ...contract,
    'permitlisten any',
    'hostkey /etc/ssh/podhost/host_key',
    'hostcertificate /etc/ssh/podhost/host_key-cert.pub',
    'allowusers root',
    'permitrootlogin without-password',
    'authorizedkeysfile /etc/ssh/podhost/authorized_keys',
    'trustedusercakeys /etc/ssh/podhost/user_ca.pub',
    'authorizedprincipalsfile /etc/ssh/podhost/principals',
    'passwordauthentication no',
    'kbdinteractiveauthentication no',
    'exposeauthinfo yes',
    'subsystem sftp internal-sftp',
  ]) t.ok(effective.has(line), line);
  t.equal([...effective].filter((l) => l.startsWith('hostkey ')).length, 1, 'one host key');

  const brokenCopy = join(pod.dir, 'broken-sshd_config');
  await asRoot(`sed "s/^GatewayPorts no$/GatewayPort no/" /etc/ssh/sshd_config > ${brokenCopy}`);
  const broken = await ssh(root, `sshd -t -f ${brokenCopy}; echo "exit $?"`);
  t.match(broken.stdout, /exit 255/, 'a mistyped keyword fails sshd -t');
  t.match(broken.stderr, /Bad configuration option: GatewayPort/);
});

t.test('the entrypoint wrote the pod\'s keys: the host key 0600 and the only one served, its certificate, root\'s key, the CA, gf-<pod id>', async (t) => {
  const written = join(pod.dir, 'root', 'etc', 'ssh', 'podhost');
  t.equal((await stat(join(written, 'host_key'))).mode & 0o777, 0o600);
  t.equal(await readFile(join(written, 'principals'), 'utf8'), `gf-${POD_ID}\n`);
  t.equal(await readFile(join(written, 'user_ca.pub'), 'utf8'), `${userCa.public}\n`);
  t.equal(await readFile(join(written, 'host_key-cert.pub'), 'utf8'), `${hostCertificate}\n`);
  t.equal((await readFile(join(written, 'authorized_keys'), 'utf8')).split('\n')[0], backend.public);

  const scan = await collect(spawn('ssh-keyscan', ['-p', String(pod.port), '127.0.0.1']));
  const served = scan.stdout.split('\n').filter(Boolean).map((l) => l.split(' ').slice(1, 3).join(' '));
  t.same(served, [hostKey.public.split(' ').slice(0, 2).join(' ')], 'ssh-keyscan finds the certified key and no other');
  const certificates = await collect(spawn('ssh-keyscan', ['-c', '-p', String(pod.port), '127.0.0.1']));
  t.match(certificates.stdout, hostCertificate.split(' ')[1]!, 'and its host certificate');

  const environment = await asRoot('env');
  t.notMatch(environment, /PODHOST_SSH_HOST_KEY|PRIVATE KEY/, 'a session\'s environment has no host key');
});

t.test('the entrypoint refuses to start for another contract version, a missing or malformed key, a certificate of another key, no pod id', async (t) => {
  const other = keyPair();
  const valid = { podId: POD_ID, backendPublicKey: backend.public, userCaPublicKey: userCa.public, hostKey: { privateKey: hostKey.private, certificate: hostCertificate } };
  const cases: [string, Parameters<typeof startPodSsh>[0], RegExp][] = [
    ['version 1', { ...valid, setupVersion: '1' }, /podhost-entrypoint: PODHOST_SETUP is 1: this image keeps version 2 of Quad's pod image contract/],
    ['no version', { ...valid, setupVersion: '' }, /podhost-entrypoint: PODHOST_SETUP is not set/],
    ['two backend keys', { ...valid, backendPublicKey: `${backend.public}\n${other.public}` }, /PODHOST_SSH_PUBLIC_KEY is not one OpenSSH public key line/],
    ['no user CA', { ...valid, userCaPublicKey: '' }, /PODHOST_SSH_CA_PUBLIC_KEY is not set/],
    ['not a private key', { ...valid, hostKey: { privateKey: other.public, certificate: hostCertificate } }, /PODHOST_SSH_HOST_KEY is not an OpenSSH private key/],
    ['a certificate of another key', { ...valid, hostKey: { privateKey: other.private, certificate: hostCertificate } }, /PODHOST_SSH_HOST_CERTIFICATE certifies another key than PODHOST_SSH_HOST_KEY/],
    ['a user certificate', {
      ...valid, hostKey: { privateKey: hostKey.private, certificate: issueCertificate({ podId: POD_ID, key: parsePublicKey(hostKey.public), caPrivateKey: hostCa.private, keyId: 'x', memberUsername: null }).certificate },
    }, /PODHOST_SSH_HOST_CERTIFICATE is a user certificate, not a host certificate/],
    ['no pod id', { ...valid, podId: '' }, /RUNPOD_POD_ID is not set/],
  ];
  await Promise.all(cases.map(async ([name, options, error]) => {
    await t.rejects(startPodSsh(options), { message: error }, name);
  }));
});

t.test('a member lands in their own account and folder: podhost_<username>, /workspace/<username> (700), no sudo', async (t) => {
  const alice = await personLogin('alice');
  const res = await ssh(alice, 'id -un; pwd; echo "$HOME"; stat -c "%a %U" .; test "$(id -u)" -ge 1000 && echo not-root');
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stdout, 'podhost_alice\n/workspace/alice\n/workspace/alice\n700 podhost_alice\nnot-root\n');
  const bob = await personLogin('bob');
  t.equal((await ssh(bob, 'echo secret-of-bob > notes.txt && id -un')).stdout, 'podhost_bob\n');

  const tries = await ssh(alice, [
    'cat /workspace/bob/notes.txt 2>/dev/null || echo no-bob-notes',
    'cat /etc/ssh/podhost/host_key 2>/dev/null || echo no-host-key',
    'touch /workspace/intruder 2>/dev/null || echo no-workspace-write',
    'sudo true 2>/dev/null || echo no-sudo',
    '/usr/local/bin/podhost-login bob',
  ].join('; '));
  t.equal(tries.stdout, 'no-bob-notes\nno-host-key\nno-workspace-write\nno-sudo\n');
  t.match(tries.stderr, /podhost-login: runs as root/, 'podhost-login does nothing for a member');
  t.not(tries.code, 0);
});

t.test('SFTP as a member: their folder, their files', async (t) => {
  const alice = await personLogin('alice');
  const local = join(home, 'upload.txt');
  await writeFile(local, 'uploaded by alice\n');
  await chmod(local, 0o644);
  const res = await collect(spawn('sftp', sshArgs(alice, ['-b', '-', 'root@127.0.0.1'])), `pwd\nput ${local} upload.txt\n`);
  t.equal(res.code, 0, res.stderr);
  t.match(res.stdout, /Remote working directory: \/workspace\/alice/);
  t.equal(await asRoot('stat -c "%U %a" /workspace/alice/upload.txt; cat /workspace/alice/upload.txt'), 'podhost_alice 644\nuploaded by alice\n');
});

t.test('after a restart (accounts gone, folders kept) a member gets their folder\'s uid back, and a new member never takes it', async (t) => {
  const alice = await personLogin('alice');
  await ssh(alice, 'echo kept > kept.txt && chmod 600 kept.txt');
  const aliceUid = (await asRoot('stat -c %u /workspace/alice')).trim();
  // The provider resets the container's disk at a restart: /etc/passwd loses the accounts, the volume keeps the folders.
  await asRoot('userdel podhost_alice && userdel podhost_bob');
  const carol = await personLogin('carol');
  const carolUid = (await ssh(carol, 'id -u')).stdout.trim();
  t.not(carolUid, aliceUid, 'a new account does not take the uid of a folder whose account is not made again yet');
  t.ok(Number(carolUid) > Number(aliceUid));
  const back = await ssh(alice, 'id -u; cat kept.txt');
  t.equal(back.stdout, `${aliceUid}\nkept\n`, 'alice gets her uid back and reads her files');
  t.equal((await ssh(carol, 'cat /workspace/alice/kept.txt 2>/dev/null || echo no')).stdout, 'no\n');
});

t.test('a folder an officer made is handed to the member; one of another account is refused', async (t) => {
  await asRoot('mkdir /workspace/dave && mkdir /workspace/erin && chown podhost_carol /workspace/erin');
  const dave = await personLogin('dave');
  t.equal((await ssh(dave, 'stat -c "%a %U" .')).stdout, '700 podhost_dave\n');
  const erin = await personLogin('erin');
  const refused = await ssh(erin, 'id -un');
  t.equal(refused.code, 1);
  t.equal(refused.stdout, '');
  t.match(refused.stderr, /^podhost-login: \/workspace\/erin belongs to another account \(uid \d+\): ask an officer of the org to give it to podhost_erin$/m);
  t.equal(await asRoot('getent passwd podhost_erin || echo no-account'), 'no-account\n', 'and no account is made for her');
});

t.test('podhost-login refuses what is not a pod username', async (t) => {
  for (const [args, error] of [
    ['', /usage: podhost-login <username>/],
    ['Alice', /"Alice" is not a pod username/],
    ['a..b', /"a\.\.b" is not a pod username/],
    ['../etc', /"\.\.\/etc" is not a pod username/],
    ['x', /"x" is not a pod username/],
    ['alice bob', /usage/],
  ] as const) {
    const res = await ssh(root, `/usr/local/bin/podhost-login ${args}`);
    t.equal(res.code, 1, args);
    t.match(res.stderr, error, args);
  }
  t.equal((await asRoot('ls /workspace')).split('\n').filter(Boolean).sort().join(' '), 'alice bob carol dave erin', 'no folder was made for them');
  const id = await ssh(root, 'SSH_ORIGINAL_COMMAND="id -un" /usr/local/bin/podhost-login id-1300000000000000001');
  t.equal(id.stdout, 'podhost_id-1300000000000000001\n', 'id-<chat user id>, for a name an account cannot carry');
});

t.test('terminals as the connected route sees them: a member\'s su - podhost_<username>, an officer\'s admin.bashrc shell', async (t) => {
  const member = terminal(t, await personLogin('alice'));
  const officer = terminal(t, await personLogin('frank', true));
  terminal(t, root); // the service's key: a root login, not a session
  // Once the three terminals have their shells (sshd names each session's process root@pts/<n>), the route's reading.
  await until('three terminals on the pod', async () => (await asRoot('ps -eo args')).split('\n').filter((l) => /^sshd: root@pts\//.test(l)).length === 3);
  const sessions = await until('the shells of both sessions', async () => {
    const reading = parseSessions(await asRoot(SESSIONS_COMMAND));
    return reading.podhostLogin && reading.sessions.length >= 2 ? reading.sessions : null;
  });
  t.same(sessions.map((s) => [s.username, s.is_admin]), [['alice', false], ['frank', true]], 'the service\'s root terminal is no session');
  await until('the officer\'s banner', () => /Officer shell as root \(frank\)/.test(officer.output()));
  await until('the member\'s banner', () => /you are podhost_alice on this pod, in \/workspace\/alice/.test(member.output()));
  t.pass('banners shown');

  // An officer's command (no terminal) runs as root as it is, without PODHOST_USER.
  const command = await ssh(await personLogin('frank', true), 'echo "$(id -un) [${PODHOST_USER:-}]"');
  t.equal(command.stdout, 'root []\n');
});
