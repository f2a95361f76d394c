// A fake pod for tests: a real OpenSSH sshd on 127.0.0.1 (a free port) that keeps the pod image contract, version 2
// (spec document 2, "Pod image contract", and plugins/pods/image-contract.ts): root logs in with the org's backend key
// (AuthorizedKeysFile), certificates of the org's user CA with principal gf-<pod_id> are accepted (TrustedUserCAKeys,
// AuthorizedPrincipalsFile), the host key and host certificate Quad made for the pod are served (HostKey,
// HostCertificate) and no other, forwarding is held to the contract's floor (no Unix sockets, loopback targets only,
// no gateway ports, no tunnels, no X11), SFTP is served (internal-sftp), and /usr/local/bin/podhost-login exists (a
// stub, or missing with podhostLogin: false). servePod refuses a pod whose PODHOST_SETUP is not 2, as an image
// built for the contract refuses a version it does not know. It can also play an impostor at a pod's address: a
// host with its own host key, or with another pod's certified one.
// It runs under `unshare` in its own mount and PID namespaces: /usr/local/bin is bind-mounted there only (the host's
// stays as it is), and `ps` over SSH sees only this pod's processes, so parallel test files never see each other's
// sessions. The namespace's first process is a shell that waits on a pipe from this process: when the pipe closes
// (close(), or the test process dies) that shell removes the temporary folder and exits, and the kernel kills
// everything in the namespace.
// Needs root, util-linux unshare and OpenSSH's sshd (.ci/setup-ssh.sh). Test code, not production code.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile, chmod } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FakeHostprov } from '../hostprov/index.js';

export interface PodSshOptions {
  /** The provider's pod id: the accepted certificate principal is gf-<podId>. */
  podId: string;
  /** The org's backend public key (`ssh-ed25519 AAAA…`): root logs in with it. */
  backendPublicKey: string;
  /** The org's user CA public key: certificates it signs are trusted. */
  userCaPublicKey: string;
  /** Whether /usr/local/bin/podhost-login exists. Default: true. */
  podhostLogin?: boolean;
  /** More public keys root logs in with: a test's own, to start processes on the pod. Default: none. */
  extraAuthorizedKeys?: string[];
  /** The host key to serve (OpenSSH private key text) and its host certificate. Default: a new key of its own, uncertified. */
  hostKey?: { privateKey: string; certificate?: string };
}

/** The contract version this fake keeps (plugins/pods/image-contract.ts SETUP_VERSION). */
export const POD_CONTRACT_VERSION = '2';

export interface FakePodSsh {
  host: '127.0.0.1';
  port: number;
  /** The fake's own temporary folder (config, keys): a place where tests may put files. */
  dir: string;
  /** Stops sshd and every process of its namespace (sessions included) and removes the folder. */
  close(): Promise<void>;
}

const SSHD = '/usr/sbin/sshd';
const START_TIMEOUT_MS = 10_000;
const PORT_ATTEMPTS = 5;
/**
 * Stands for the image's podhost-login: the real one becomes `su - podhost_<username>`, which is the command line
 * the connected-sessions route looks for. This one only takes that name and sleeps.
 */
const PODHOST_LOGIN_STUB = '#!/bin/bash\nexec -a "su - podhost_$1" sleep 3600\n';

const run = promisify(execFile);

/**
 * The sshd of a pod the fake provider holds: trusting the keys Quad put in the pod's environment (the pod image
 * contract), and published by the provider as every running pod's SSH address from now on.
 */
export async function servePod(provider: FakeHostprov, podId: string, options: ServePodOptions = {}): Promise<FakePodSsh> {
  const envOf = (id: string) => provider.pods.find((p) => p.id === id)?.env;
  const env = envOf(podId);
  if (!env?.PODHOST_SSH_PUBLIC_KEY || !env.PODHOST_SSH_CA_PUBLIC_KEY) throw new Error(`fake pod sshd: pod ${podId} has no podhost keys in its environment`);
  if (env.PODHOST_SETUP !== POD_CONTRACT_VERSION) throw new Error(`fake pod sshd: PODHOST_SETUP is ${env.PODHOST_SETUP}, this image keeps version ${POD_CONTRACT_VERSION}`);
  const { hostKey = 'own', ...rest } = options;
  let served: PodSshOptions['hostKey'];
  if (hostKey !== 'fresh') {
    const from = envOf(hostKey === 'own' ? podId : hostKey.of);
    if (!from?.PODHOST_SSH_HOST_KEY || !from.PODHOST_SSH_HOST_CERTIFICATE) throw new Error('fake pod sshd: no host key and certificate in the pod\'s environment');
    served = { privateKey: from.PODHOST_SSH_HOST_KEY, certificate: from.PODHOST_SSH_HOST_CERTIFICATE };
  }
  const pod = await startPodSsh({ ...rest, podId, backendPublicKey: env.PODHOST_SSH_PUBLIC_KEY, userCaPublicKey: env.PODHOST_SSH_CA_PUBLIC_KEY, hostKey: served });
  provider.publishSshAt({ host: pod.host, port: pod.port });
  return pod;
}

export interface ServePodOptions extends Omit<PodSshOptions, 'podId' | 'backendPublicKey' | 'userCaPublicKey' | 'hostKey'> {
  /**
   * The host key served: the pod's own from its environment (`own`, the default), a new uncertified one (`fresh`: an
   * impostor, or an image that ignores the contract), or another pod's certified key and certificate (`{ of }`: an
   * impostor holding a key Quad certified for another pod). The other keys are the pod's either way.
   */
  hostKey?: 'own' | 'fresh' | { of: string };
}

export async function startPodSsh(options: PodSshOptions): Promise<FakePodSsh> {
  const dir = await mkdtemp(join(tmpdir(), 'quad-pod-ssh-'));
  try {
    const certified = await writeConfigFiles(dir, options);
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      await writeFile(join(dir, 'sshd_config'), sshdConfig(dir, port, certified));
      const started = await startNamespace(dir);
      if (started.ok) return fakePod(dir, port, started.child);
      if (!started.portTaken || attempt === PORT_ATTEMPTS) throw new Error(`fake pod sshd did not start: ${started.log.trim()}`);
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

async function writeConfigFiles(dir: string, options: PodSshOptions): Promise<boolean> {
  // sshd refuses a host key file that others may read.
  if (options.hostKey) await writeFile(join(dir, 'host_key'), `${options.hostKey.privateKey.trim()}\n`, { mode: 0o600 });
  else await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'fake-pod-host', '-f', join(dir, 'host_key')]);
  const certified = !!options.hostKey?.certificate;
  if (certified) await writeFile(join(dir, 'host_key-cert.pub'), `${options.hostKey!.certificate!.trim()}\n`);
  const rootKeys = [options.backendPublicKey, ...(options.extraAuthorizedKeys ?? [])].map((k) => `${k.trim()}\n`);
  await writeFile(join(dir, 'authorized_keys'), rootKeys.join(''));
  await writeFile(join(dir, 'user_ca.pub'), `${options.userCaPublicKey.trim()}\n`);
  await writeFile(join(dir, 'principals'), `gf-${options.podId}\n`);
  // The folder mounted over /usr/local/bin: empty when the pod has no podhost-login.
  await mkdir(join(dir, 'bin'));
  if (options.podhostLogin ?? true) {
    await writeFile(join(dir, 'bin', 'podhost-login'), PODHOST_LOGIN_STUB);
    await chmod(join(dir, 'bin', 'podhost-login'), 0o755);
  }
  return certified;
}

function sshdConfig(dir: string, port: number, certified: boolean): string {
  return [
    `ListenAddress 127.0.0.1:${port}`,
    `HostKey ${join(dir, 'host_key')}`,
    ...(certified ? [`HostCertificate ${join(dir, 'host_key-cert.pub')}`] : []),
    'PidFile none',
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    `TrustedUserCAKeys ${join(dir, 'user_ca.pub')}`,
    `AuthorizedPrincipalsFile ${join(dir, 'principals')}`,
    'UsePAM no',
    'StrictModes no',
    'PermitRootLogin prohibit-password',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'Subsystem sftp internal-sftp',
    // The contract's floor for everyone; members' certificates permit no forwarding at all.
    'AllowStreamLocalForwarding no',
    'PermitOpen localhost:* 127.0.0.1:* [::1]:*',
    'GatewayPorts no',
    'PermitTunnel no',
    'X11Forwarding no',
    '',
  ].join('\n');
}

/** A port nothing listens on now (another process may take it before sshd does: the caller retries). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type Started = { ok: true; child: ChildProcess } | { ok: false; portTaken: boolean; log: string };

/**
 * unshare runs a shell as the namespace's first process: it mounts the stub folder over /usr/local/bin, starts sshd
 * and then blocks reading its stdin (our pipe); sshd gets /dev/null instead, so its sessions never hold the pipe open.
 */
async function startNamespace(dir: string): Promise<Started> {
  const script = [
    'set -e',
    'mkdir -p /run/sshd', // sshd's privilege-separation folder
    `mount --bind ${join(dir, 'bin')} /usr/local/bin`,
    `${SSHD} -D -e -f ${join(dir, 'sshd_config')} </dev/null &`,
    'read -r _ || true',
    `rm -rf '${dir}'`, // also when the test process died without close()
  ].join('\n');
  const child = spawn('unshare', ['--mount', '--pid', '--fork', '--mount-proc', '--propagation', 'private', '--kill-child', 'sh', '-c', script], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let log = '';
  return new Promise<Started>((resolve) => {
    const timer = setTimeout(() => finish({ ok: false, portTaken: false, log: `${log}(no "Server listening" within ${START_TIMEOUT_MS} ms)` }), START_TIMEOUT_MS);
    const finish = (started: Started) => {
      clearTimeout(timer);
      child.stderr!.removeListener('data', onData);
      child.removeListener('exit', onExit);
      if (!started.ok) child.kill('SIGKILL'); // not stdin: the shell would remove the folder the next attempt uses
      else child.stderr!.resume(); // keep draining sshd's log so it never blocks on a full pipe
      resolve(started);
    };
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (/Server listening on/.test(log)) finish({ ok: true, child });
      else if (/Cannot bind any address|Address already in use/.test(log)) finish({ ok: false, portTaken: true, log });
    };
    const onExit = () => finish({ ok: false, portTaken: /Address already in use|Cannot bind/.test(log), log });
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });
}

function fakePod(dir: string, port: number, child: ChildProcess): FakePodSsh {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let closing: Promise<void> | null = null;
  return {
    host: '127.0.0.1', port, dir,
    close() {
      closing ??= (async () => {
        child.stdin!.end(); // the namespace's first shell reads EOF and exits; the kernel kills the rest
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000); // --kill-child then kills the namespace
        await exited;
        clearTimeout(timer);
        await rm(dir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}
