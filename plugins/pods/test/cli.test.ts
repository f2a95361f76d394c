// The podhost CLI as members run it: the installed launcher (bin/podhost.js, the built CLI) in its own process, over
// real HTTP to Quad, signing in through the org's page, and the system `ssh` with its certificate into a real sshd
// that keeps the pod image contract (test/fakes/pod-ssh). Officers land as root; a member's certificate is forced
// into podhost-login, whose session the connected route then sees. Clear errors for an expired token, a stopped pod
// and no access.
import t from 'tap';
import { execFile, spawn } from 'node:child_process';
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
