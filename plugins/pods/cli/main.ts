// podhost: the member's CLI for an org's pods (spec "Member pod routes"). `login` opens the org's sign-in page and
// keeps the token it shows (0600); `pods` lists the running pods the member may use; `connect <pod>` makes an ed25519
// key once, asks Quad for a 12-hour certificate for it and runs the system `ssh` with both, trusting only a host
// certificate of the org's host CA for the pod's own name (issue 38); `logout` forgets the token. Its name in
// messages is PODHOST_CLI_NAME (default podhost), as the server's pages call it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { CliError, callQuad, type Connection, type MemberPod } from './api.js';
import { configDir, readConfig, removeConfigToken, writeConfig, type CliConfig } from './config.js';

const TOKEN = /^plat_[A-Za-z0-9_-]{20,}$/;
/** What the server names the pod's host with, and its host CA: checked, as they become ssh options and a known_hosts line. */
const HOST_KEY_ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const PUBLIC_KEY = /^(ssh-ed25519|ecdsa-sha2-nistp(256|384|521)|ssh-rsa) [A-Za-z0-9+/]+={0,2}( [^\r\n]*)?$/;

function usage(cli: string): string {
  return `Usage:
  ${cli} login --server <url> --org <org>   sign in with Discord (opens the browser; paste the token it shows)
  ${cli} login                              sign in again to the same server and org
  ${cli} pods                               the running pods you may connect to
  ${cli} connect <pod> [-- <ssh args>]      SSH to a pod with a 12-hour certificate
  ${cli} logout                             forget the saved token
`;
}

/** `--name value` options of the login command. */
function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
}

const RELAYED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Run a program with the terminal; its exit code (127 when it is missing). A stop signal to the CLI stops it too. */
function runProgram(program: string, args: string[], stdio: 'inherit' | 'ignore' = 'inherit'): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { stdio });
    const relay = (signal: NodeJS.Signals) => child.kill(signal);
    for (const signal of RELAYED_SIGNALS) process.on(signal, relay);
    const done = (code: number) => {
      for (const signal of RELAYED_SIGNALS) process.off(signal, relay);
      resolve(code);
    };
    child.on('error', () => done(127));
    child.on('exit', (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

/** Best effort: the URL is printed either way. $BROWSER wins, as in most CLIs. */
function openBrowser(url: string): void {
  const opener = process.env.BROWSER || (process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open');
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

async function login(cli: string, dir: string, args: string[]): Promise<void> {
  const saved = await readConfig(dir);
  const server = option(args, 'server') ?? saved?.server;
  const org = option(args, 'org') ?? saved?.org;
  if (!server || !org) throw new CliError(`Which server and org? ${cli} login --server <url> --org <org>`);
  if (!/^https?:\/\//.test(server)) throw new CliError(`--server must be an http(s) URL, e.g. https://quad.example.org`);
  const url = new URL(`/api/compute/${encodeURIComponent(org)}/cli/login`, server).toString();
  console.error(`Sign in with Discord in your browser:\n  ${url}`);
  openBrowser(url);
  const token = await ask('Paste the token the page shows: ');
  if (!TOKEN.test(token)) throw new CliError('That is not a token (it starts with plat_): run login again and copy the whole token');
  const config: CliConfig = { server, org, token };
  // Check it before keeping it: a wrong org or an old token fails here, not at the next connect.
  await callQuad<{ pods: MemberPod[] }>(cli, config, 'GET', '/me/pods');
  await writeConfig(dir, config);
  console.error(`Signed in to ${org}. Next: ${cli} pods`);
}

async function signedIn(cli: string, dir: string): Promise<CliConfig> {
  const config = await readConfig(dir);
  if (!config?.token) throw new CliError(`Not signed in: run \`${cli} login --server <url> --org <org>\`.`);
  return config;
}

async function pods(cli: string, dir: string): Promise<void> {
  const { pods: list } = await callQuad<{ pods: MemberPod[] }>(cli, await signedIn(cli, dir), 'GET', '/me/pods');
  if (!list.length) {
    console.log('No running pod you may use. Ask an officer to start one or to add you to one.');
    return;
  }
  const rows = list.map((p) => [p.pod_id, p.name, p.kind === 'gpu' ? `${p.gpu_count ?? 1}× ${p.gpu_type_id}` : `${p.vcpu_count} vCPU ${p.cpu_flavor}`, p.access]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length), ['POD', 'NAME', 'HARDWARE'][i]!.length));
  const line = (r: string[]) => r.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c)).join('  ');
  console.log([line(['POD', 'NAME', 'HARDWARE', 'ACCESS']), ...rows.map(line)].join('\n'));
}

/** The CLI's own key, made once with OpenSSH's ssh-keygen (never leaves this machine: only its public part is sent). */
async function ensureKey(dir: string): Promise<string> {
  const key = join(dir, 'id_ed25519');
  if (!existsSync(key)) {
    await writeConfig(dir, (await readConfig(dir))!);
    const code = await runProgram('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'podhost', '-f', key], 'ignore');
    if (code !== 0) throw new CliError('ssh-keygen failed to make a key: is OpenSSH installed?');
  }
  return key;
}

/**
 * The CLI's own known_hosts: the org's host CA, for any name (ssh's HostKeyAlias names the pod at each connect, so
 * the CA vouches for that pod's host certificate only). Replaced whole (a rename), so connects at once never see half.
 */
async function writeKnownHosts(dir: string, hostCa: string): Promise<string> {
  const file = join(dir, 'known_hosts');
  const draft = `${file}.${process.pid}.tmp`;
  await writeFile(draft, `@cert-authority * ${hostCa}\n`, { mode: 0o600 });
  await rename(draft, file);
  return file;
}

async function connect(cli: string, dir: string, args: string[]): Promise<number> {
  const split = args.indexOf('--');
  const [podId] = split >= 0 ? args.slice(0, split) : args;
  const sshArgs = split >= 0 ? args.slice(split + 1) : [];
  if (!podId) throw new CliError(`Which pod? ${cli} connect <pod> (see ${cli} pods)`);
  const config = await signedIn(cli, dir);
  const key = await ensureKey(dir);
  const publicKey = await readFile(`${key}.pub`, 'utf8');
  const c = await callQuad<Connection>(cli, config, 'POST', `/me/pods/${encodeURIComponent(podId)}/connect`, { public_key: publicKey });
  const hostCa = c.host_ca?.trim() ?? '';
  if (!c.host_key_alias || !HOST_KEY_ALIAS.test(c.host_key_alias) || !PUBLIC_KEY.test(hostCa)) {
    throw new CliError('The server did not say how to check the pod\'s host key (is it an older Quad?): not connecting');
  }
  const certificate = `${key}-cert.pub`;
  await writeFile(certificate, `${c.certificate}\n`, { mode: 0o600 });
  const knownHosts = await writeKnownHosts(dir, hostCa);
  console.error(`${c.is_admin ? 'root' : c.username} on ${podId} (certificate valid until ${c.valid_before}; your folder: ${c.user_folder})`);
  // Pods come and go on the provider's addresses, so the host is named by its certificate's principal, not its
  // address, and only a host certificate of the org's host CA for that name is accepted. These options come before
  // the member's own: ssh keeps the first value of an option.
  return runProgram(process.env.PODHOST_SSH || 'ssh', [
    '-i', key, '-o', `CertificateFile=${certificate}`, '-o', 'IdentitiesOnly=yes',
    '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'GlobalKnownHostsFile=/dev/null',
    '-o', `HostKeyAlias=${c.host_key_alias}`, '-o', 'CheckHostIP=no', '-o', 'UpdateHostKeys=no', '-o', 'LogLevel=ERROR',
    '-p', String(c.port), `${c.user}@${c.host}`, ...sshArgs,
  ]);
}

export async function main(argv: string[]): Promise<number> {
  const cli = process.env.PODHOST_CLI_NAME || 'podhost';
  const dir = configDir();
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'login': await login(cli, dir, args); return 0;
      case 'pods': await pods(cli, dir); return 0;
      case 'connect': return await connect(cli, dir, args);
      case 'logout':
        console.error(await removeConfigToken(dir) ? 'Signed out.' : 'Not signed in.');
        return 0;
      case undefined: case 'help': case '--help': case '-h':
        process.stdout.write(usage(cli));
        return command ? 0 : 2;
      default:
        process.stderr.write(`Unknown command "${command}".\n${usage(cli)}`);
        return 2;
    }
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    console.error(`${cli}: ${err.message}`);
    return 1;
  }
}
