// The podhost CLI as members run it: the installed launcher (bin/podhost.js, the built CLI) in its own process, over
// real HTTP to Quad, signing in through the org's page, and the system `ssh` with its certificate into a real sshd
// that keeps the pod image contract (test/fakes/pod-ssh). Officers land as root; a member's certificate is forced
// into podhost-login, whose session the connected route then sees. A member's `ssh -N -L` and `-R` reach nothing
// on the pod (issue 38: the certificate permits no forwarding), an officer's forward bytes. ssh accepts only the
// pod's host certificate from the org's host CA: a host with its own key, or with another pod's certified key, at
// the pod's address is refused. Clear errors for an expired token, a stopped pod and no access.
import t, { type Test } from 'tap';
import { execFile, spawn } from 'node:child_process';
import { connect as dial, createServer, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cookieFrom, servePod, type FakeUser } from '@quad/core/testing';
import { startPodsWorld } from './world.js';

const LAUNCHER = new URL('../cli/bin/podhost.js', import.meta.url).pathname;
const w = await startPodsWorld(t, { listen: true, config: { ACCOUNTS_BASE_URL: 'http://quad.test' } });
const { quad, org, discord, fake, asOfficer: officer } = w;

const shared = await w.createPod({ gpu_type_id: 'RTX', name: 'shared', is_public: true });
const closed = await w.createPod({ gpu_type_id: 'RTX', name: 'closed' });
const pod = await servePod(fake, shared);
t.teardown(() => pod.close());

interface Run { code: number | null; stdout: string; stderr: string }
interface Cli { home: string; run(args: string[], stdin?: string): Promise<Run>; start(args: string[]): ReturnType<typeof spawn> }
async function cliFor(name: string): Promise<Cli> {
  const home = await mkdtemp(join(tmpdir(), `quad-cli-${name}-`));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  const start = (args: string[]) => spawn(process.execPath, [LAUNCHER, ...args], { env: { ...process.env, PODHOST_HOME: home, BROWSER: 'true' }, stdio: 'pipe' });
  return {
    home,
    start,
    run(args, stdin = '') {
      const child = start(args);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d) => { stdout += d; });
      child.stderr!.on('data', (d) => { stderr += d; });
      child.stdin!.end(stdin);
      return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
    },
  };
}

/** The org's CLI sign-in page in a "browser", for a Discord user: the token it shows. */
async function tokenFromPage(loginUrl: string, user: FakeUser): Promise<string> {
  const start = await fetch(loginUrl, { redirect: 'manual' });
  discord.signInAs(user.id);
  const back = new URL((await fetch(start.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!);
  const page = await fetch(`${quad.url}${back.pathname}${back.search}`, { headers: { cookie: cookieFrom({ headers: { 'set-cookie': start.headers.get('set-cookie') } } as never) } });
  return /<code id="token">(plat_[^<]+)<\/code>/.exec(await page.text())![1]!;
}

/** `podhost login`, answering its prompt with the token the printed page shows the user. */
async function login(cli: Cli, user: FakeUser): Promise<Run> {
  const child = cli.start(['login', '--server', quad.url, '--org', org.prefix]);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => { stdout += d; });
  const url = await new Promise<string>((resolve) => child.stderr!.on('data', (d) => {
    stderr += d;
    const found = /(http:\/\/\S+\/cli\/login)/.exec(stderr);
    if (found && /Paste the token/.test(stderr)) resolve(found[1]!);
  }));
  child.stdin!.end(`${await tokenFromPage(url, user)}\n`);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const memberCli = await cliFor('member');
const officerCli = await cliFor('officer');

t.test('installs with npm i -g from the workspace', async (t) => {
  const prefix = await mkdtemp(join(tmpdir(), 'quad-cli-global-'));
  t.teardown(() => rm(prefix, { recursive: true, force: true }));
  const cliPackage = new URL('../cli/', import.meta.url).pathname;
  await promisify(execFile)('npm', ['i', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', cliPackage]);
  const help = await promisify(execFile)(join(prefix, 'bin', 'podhost'), ['--help']);
  t.match(help.stdout, /^Usage:\n  podhost login --server <url> --org <org>/);
});

t.test('login keeps the token 0600; pods lists what the member may use', async (t) => {
  const signedIn = await login(memberCli, w.member);
  t.equal(signedIn.code, 0, signedIn.stderr);
  t.match(signedIn.stderr, /Signed in to acm/);
  const file = join(memberCli.home, 'config.json');
  t.equal((await stat(file)).mode & 0o777, 0o600);
  t.match(JSON.parse(await readFile(file, 'utf8')), { server: quad.url, org: org.prefix, token: /^plat_/ });
  const pods = await memberCli.run(['pods']);
  t.equal(pods.code, 0, pods.stderr);
  t.match(pods.stdout, new RegExp(`^POD\\s+NAME\\s+HARDWARE\\s+ACCESS\\n${shared}\\s+shared\\s+1× RTX\\s+public\\n$`));
  t.notMatch(pods.stdout, closed);
});

t.test('an officer connects as root with the system ssh', async (t) => {
  t.equal((await login(officerCli, w.officer)).code, 0);
  const res = await officerCli.run(['connect', shared, '--', 'echo', 'on-the-pod-as', '$(id -un)']);
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stdout, 'on-the-pod-as root\n');
  t.match(res.stderr, new RegExp(`root on ${shared} \\(certificate valid until `));
  const key = await readFile(join(officerCli.home, 'id_ed25519.pub'), 'utf8');
  t.equal((await officerCli.run(['connect', shared, '--', 'true'])).code, 0);
  t.equal(await readFile(join(officerCli.home, 'id_ed25519.pub'), 'utf8'), key, 'the key is made once');
});

t.test('a member lands in podhost-login, and the connected route sees the session', async (t) => {
  const session = memberCli.start(['connect', shared]);
  let stderr = '';
  session.stderr!.on('data', (d) => { stderr += d; });
  const ended = new Promise((resolve) => session.on('exit', resolve));
  t.teardown(() => { session.kill(); return ended; });
  let connected: { state: string; sessions: { username: string; is_admin: boolean; chat_user_id: string | null }[] } = { state: 'unknown', sessions: [] };
  for (let i = 0; i < 100 && !connected.sessions.length; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    connected = (await officer('GET', `/pods/${shared}/members/connected`)).json();
  }
  t.equal(connected.state, 'known', stderr);
  t.match(connected.sessions, [{ username: w.member.username, is_admin: false, chat_user_id: w.member.id }]);
  t.match(stderr, new RegExp(`${w.member.username} on ${shared} .*your folder: /workspace/${w.member.username}`));
});

/** A service on the pod's side (the fake pod shares this machine's network and /tmp): a TCP port or a Unix socket. */
interface PodService { port: number; reached: Promise<void>; received: Promise<string>; connections(): number }
async function podService(t: Test, path?: string): Promise<PodService> {
  let connections = 0;
  const sockets = new Set<Socket>();
  let reach!: () => void;
  let receive!: (text: string) => void;
  const reached = new Promise<void>((resolve) => { reach = resolve; });
  const received = new Promise<string>((resolve) => { receive = resolve; });
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket.on('error', () => {}));
    reach();
    socket.once('data', (data) => receive(data.toString()));
  });
  await new Promise<void>((resolve) => (path ? server.listen(path, resolve) : server.listen(0, '127.0.0.1', resolve)));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: path ? 0 : (server.address() as { port: number }).port, reached, received, connections: () => connections };
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `connect <pod> -- -v -N <args>` kept running: waits for lines of ssh's verbose log; stopped at the test's end. */
function forwarding(t: Test, cli: Cli, args: string[]) {
  const child = cli.start(['connect', shared, '--', '-v', '-N', ...args]);
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  child.stdout!.resume();
  t.teardown(() => { child.kill(); return exited; });
  const changed = () => new Promise<void>((resolve) => { child.stderr!.once('data', () => resolve()); exited.then(resolve); });
  child.stderr!.on('data', (d) => { stderr += d; });
  return {
    /** Resolves once ssh's log matches; fails when ssh ends first. */
    async until(pattern: RegExp): Promise<string> {
      while (!pattern.test(stderr)) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`ssh ended before ${pattern}:\n${stderr}`);
        await changed();
      }
      return stderr;
    },
  };
}

/**
 * Opens a connection to a local forward and sends a byte: `refused` when ssh closes it (the pod refused the channel),
 * `reached` when the service on the pod's side got a connection instead. The connection stays open until the test
 * ends, so the byte is never raced by its close.
 */
async function through(t: Test, port: number, service: PodService): Promise<'refused' | 'reached'> {
  const socket = dial(port, '127.0.0.1').on('error', () => {});
  t.teardown(() => { socket.destroy(); });
  socket.write('x');
  const closed = new Promise<'refused'>((resolve) => socket.once('close', () => resolve('refused')));
  return Promise.race([closed, service.reached.then(() => 'reached' as const)]);
}

/** Whether something listens on the port (the fake pod's -R listeners would be on this machine's loopback). */
const listening = (port: number) => new Promise<boolean>((resolve) => {
  const socket = dial(port, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); resolve(true); }).once('error', () => resolve(false));
});

const localForward = (port: number) => new RegExp(`Local forwarding listening on 127\\.0\\.0\\.1 port ${port}\\.`);
/** ssh's log line for the pod's answer to a -R request. */
const remoteForward = (port: number, outcome = '(success|failure)') => new RegExp(`remote forward ${outcome} for: listen (127\\.0\\.0\\.1:)?${port},`);

/** -L to a TCP port and to a Unix socket on the pod, -R from the pod back to `back`: once ssh has set them up. */
async function forwards(t: Test, cli: Cli) {
  const service = await podService(t);
  const back = await podService(t);
  const socketDir = await mkdtemp(join(tmpdir(), 'quad-pod-socket-'));
  t.teardown(() => rm(socketDir, { recursive: true, force: true }));
  const rootSocket = await podService(t, join(socketDir, 'runtime.sock'));
  const [tcpLocal, socketLocal, remote] = [await freePort(), await freePort(), await freePort()];
  const ssh = forwarding(t, cli, [
    '-L', `${tcpLocal}:127.0.0.1:${service.port}`, '-L', `${socketLocal}:${join(socketDir, 'runtime.sock')}`,
    '-R', `127.0.0.1:${remote}:127.0.0.1:${back.port}`,
  ]);
  await ssh.until(localForward(tcpLocal));
  await ssh.until(localForward(socketLocal));
  const log = await ssh.until(remoteForward(remote));
  return { ssh, log, service, back, rootSocket, tcpLocal, socketLocal, remote };
}

t.test('a member\'s certificate forwards nothing: ssh -N -L (TCP or a root-only Unix socket) and -R reach nothing on the pod', async (t) => {
  const f = await forwards(t, memberCli);
  t.match(f.log, remoteForward(f.remote, 'failure'), '-R: the pod refused to listen');
  t.equal(await listening(f.remote), false, 'nothing listens on the pod for the member');
  const tcp = await through(t, f.tcpLocal, f.service);
  const socket = await through(t, f.socketLocal, f.rootSocket);
  t.equal(tcp, 'refused', '-L to a TCP port on the pod: refused');
  t.equal(socket, 'refused', '-L to a Unix socket on the pod: refused');
  // sshd's answers, as ssh logs them: the TCP channel for the certificate, the socket for the certificate and the contract.
  if (tcp === 'refused' && socket === 'refused') await f.ssh.until(/open failed: administratively prohibited[\s\S]*direct-streamlocal[\s\S]*open failed/);
  t.equal(f.service.connections() + f.rootSocket.connections() + f.back.connections(), 0, 'nothing reached a service on either side');
});

t.test('an officer\'s certificate still forwards TCP both ways (not Unix sockets: the image contract)', async (t) => {
  const f = await forwards(t, officerCli);
  t.match(f.log, remoteForward(f.remote, 'success'));
  t.equal(await through(t, f.socketLocal, f.rootSocket), 'refused', 'AllowStreamLocalForwarding no');
  t.equal(f.rootSocket.connections(), 0);
  t.equal(await through(t, f.tcpLocal, f.service), 'reached', '-L reaches the pod\'s port');
  t.equal(await f.service.received, 'x', 'and a byte goes through');
  const fromPod = dial(f.remote, '127.0.0.1').on('error', () => {});
  t.teardown(() => { fromPod.destroy(); });
  fromPod.write('y');
  t.equal(await f.back.received, 'y', '-R: a byte from the pod\'s side comes back');
});

t.test('ssh accepts only the pod\'s certified host: its own host key, or another pod\'s certified one, at the pod\'s address is refused', async (t) => {
  const hostCa = (await w.sql('select public_key from compute_keys where organization_id = ? and kind = ?', [org.id, 'host_ca']))[0].public_key;
  t.equal(await readFile(join(officerCli.home, 'known_hosts'), 'utf8'), `@cert-authority * ${hostCa}\n`, 'the CLI\'s own known_hosts trusts the org\'s host CA');
  t.teardown(() => fake.publishSshAt({ host: pod.host, port: pod.port }));
  for (const [name, hostKey] of [['its own host key', 'fresh'], ['another pod\'s certified host key', { of: closed }]] as const) {
    // The impostor trusts the org's keys as the pod does: only the host check stands between it and the session.
    const impostor = await servePod(fake, shared, { hostKey });
    const res = await officerCli.run(['connect', shared, '--', 'echo', 'reached-the-impostor']);
    await impostor.close();
    t.not(res.code, 0, `${name}: refused`);
    t.notMatch(res.stdout, /reached-the-impostor/, `${name}: no command ran`);
    t.match(res.stderr, /Host key verification failed/, name);
  }
  fake.publishSshAt({ host: pod.host, port: pod.port });
  const back = await officerCli.run(['connect', shared, '--', 'echo', 'the-pod-again']);
  t.equal(back.stdout, 'the-pod-again\n', back.stderr);
});

t.test('clear errors: no access, a stopped pod, an expired sign-in, logout', async (t) => {
  const denied = await memberCli.run(['connect', closed]);
  t.equal(denied.code, 1);
  t.equal(denied.stderr, 'podhost: You have no access to this pod: ask an officer of the org to add you.\n');
  fake.setStatus(shared, 'EXITED');
  const stopped = await memberCli.run(['connect', shared]);
  t.equal(stopped.code, 1);
  t.match(stopped.stderr, /^podhost: The pod is not running \(EXITED\): ask an officer to start it\.\n$/);
  fake.setStatus(shared, 'RUNNING');
  await w.sql(`update machine_tokens set expires_at = now() - interval '1 minute' where kind = 'cli' and member_chat_user_id = ?`, [w.member.id]);
  const expired = await memberCli.run(['pods']);
  t.equal(expired.code, 1);
  t.equal(expired.stderr, 'podhost: Your sign-in has expired: run `podhost login` again.\n');
  const out = await memberCli.run(['logout']);
  t.equal(out.stderr, 'Signed out.\n');
  t.notOk(JSON.parse(await readFile(join(memberCli.home, 'config.json'), 'utf8')).token);
  t.match((await memberCli.run(['pods'])).stderr, /Not signed in: run `podhost login/);
  const usage = await memberCli.run(['frobnicate']);
  t.equal(usage.code, 2);
  t.match(usage.stderr, /Unknown command "frobnicate"/);
});
