// A fake pod for tests: the pod image's own files (plugins/pods/image/rootfs: sshd_config, podhost-entrypoint,
// podhost-login, admin.bashrc, the profile snippets) run by the real OpenSSH sshd on 127.0.0.1 (a free port), so the
// pods tests exercise what a real pod runs. The image's entrypoint starts it from the pod's environment (the pod image
// contract, version 2: plugins/pods/image-contract.ts) as on a real pod, and refuses as it does there (a PODHOST_SETUP
// other than 2, a missing key, a certificate for another key). It can also play an impostor at a pod's address: a
// host with its own host key (certified by a CA of its own, which nobody trusts), or with another pod's certified one.
//
// The pod is a small container without Docker: in its own mount and PID namespaces (`unshare`), an overlay whose lower
// layer is this machine's `/` and whose upper layer (the fake's folder, `root/`) starts as a copy of the image's
// rootfs/ (the Dockerfile's COPY), with /proc, /dev and the temporary folder (shared with this machine, so tests put
// files and Unix sockets there) mounted in, and the entrypoint run chrooted in it. Only the listening address differs
// from a pod: the entrypoint passes its arguments to sshd, and it is given `-o ListenAddress=127.0.0.1:<port>`. So
// podhost-login makes its accounts in the pod's /etc/passwd and its folders in the pod's /workspace, never this
// machine's; `ps` over SSH sees only this pod's processes.
//
// The namespace's first process is a shell that waits on a pipe from this process: when the pipe closes (close(), or
// the test process dies) that shell kills the pod's processes, unmounts its root and removes the fake's folder.
// Needs root, util-linux unshare, overlayfs with the temporary folder's filesystem as an upper layer (ext4, xfs,
// tmpfs; not overlayfs itself), and OpenSSH's sshd (.ci/setup-ssh.sh). POD_SSH_DEBUG=1 in the environment copies each
// pod's log (its entrypoint's and sshd's) to the test's stderr. Test code, not production code.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, realpath, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FakeHostprov } from '../hostprov/index.js';

export interface PodSshOptions {
  /** The provider's pod id (RUNPOD_POD_ID on the pod): the accepted certificate principal is gf-<podId>. */
  podId: string;
  /** The org's backend public key (`ssh-ed25519 AAAA…`): root logs in with it. */
  backendPublicKey: string;
  /** The org's user CA public key: certificates it signs are trusted. */
  userCaPublicKey: string;
  /** Whether /usr/local/bin/podhost-login exists (the image's). Default: true. */
  podhostLogin?: boolean;
  /** More public keys root logs in with (added to the pod's authorized_keys once it runs). Default: none. */
  extraAuthorizedKeys?: string[];
  /**
   * The host key to serve (OpenSSH private key text) and its host certificate. Default: a new key of its own,
   * certified by a host CA of its own (an impostor: no org's CA).
   */
  hostKey?: { privateKey: string; certificate: string };
  /** PODHOST_SETUP in the pod's environment. Default: the contract's version, 2. */
  setupVersion?: string;
}

/** The contract version the image keeps (plugins/pods/image-contract.ts SETUP_VERSION). */
export const POD_CONTRACT_VERSION = '2';

export interface FakePodSsh {
  host: '127.0.0.1';
  port: number;
  /**
   * The fake's own temporary folder, seen at the same path on the pod: a place where tests may put files. Its
   * `authorized_keys` is the pod's (/etc/ssh/podhost/authorized_keys); its `root/` holds what the pod wrote outside
   * the temporary folder (the overlay's upper layer: /workspace, /etc/passwd once podhost-login made an account).
   */
  dir: string;
  /** Stops sshd and every process of its namespace (sessions included) and removes the folder. */
  close(): Promise<void>;
}

/** The image's files, as its Dockerfile copies them into the image. */
const IMAGE_ROOTFS = fileURLToPath(new URL('../../../plugins/pods/image/rootfs/', import.meta.url));
const ENTRYPOINT = '/usr/local/sbin/podhost-entrypoint';
const POD_AUTHORIZED_KEYS = 'etc/ssh/podhost/authorized_keys';
const START_TIMEOUT_MS = 10_000;
const PORT_ATTEMPTS = 5;
/** The pod's PATH for the entrypoint (a container's usual one), and this machine's for unshare and mount. */
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const EXITED_MARK = 'podhost-entrypoint exited';

const run = promisify(execFile);

/**
 * The sshd of a pod the fake provider holds: started by the image's entrypoint from the environment Quad gave the pod
 * (the pod image contract), and published by the provider as every running pod's SSH address from now on.
 */
export async function servePod(provider: FakeHostprov, podId: string, options: ServePodOptions = {}): Promise<FakePodSsh> {
  const envOf = (id: string) => provider.pods.find((p) => p.id === id)?.env;
  const env = envOf(podId);
  if (!env) throw new Error(`fake pod sshd: the provider has no pod ${podId}`);
  const { hostKey = 'own', ...rest } = options;
  let served: PodSshOptions['hostKey'];
  if (hostKey !== 'fresh') {
    const from = envOf(hostKey === 'own' ? podId : hostKey.of) ?? {};
    served = { privateKey: from.PODHOST_SSH_HOST_KEY ?? '', certificate: from.PODHOST_SSH_HOST_CERTIFICATE ?? '' };
  }
  const pod = await startPodSsh({
    ...rest, podId, setupVersion: env.PODHOST_SETUP ?? '',
    backendPublicKey: env.PODHOST_SSH_PUBLIC_KEY ?? '', userCaPublicKey: env.PODHOST_SSH_CA_PUBLIC_KEY ?? '', hostKey: served,
  });
  provider.publishSshAt({ host: pod.host, port: pod.port });
  return pod;
}

export interface ServePodOptions extends Omit<PodSshOptions, 'podId' | 'backendPublicKey' | 'userCaPublicKey' | 'hostKey' | 'setupVersion'> {
  /**
   * The host key served: the pod's own from its environment (`own`, the default), a new one certified by nobody the
   * org trusts (`fresh`: an impostor, or an image that ignores the contract), or another pod's certified key and
   * certificate (`{ of }`: an impostor holding a key Quad certified for another pod). The other keys are the pod's.
   */
  hostKey?: 'own' | 'fresh' | { of: string };
}

export async function startPodSsh(options: PodSshOptions): Promise<FakePodSsh> {
  const env = podEnvironment(options, options.hostKey ?? await impostorHostKey());
  // Each attempt is a pod of its own (its folder, its overlay): a failed one cleans up after itself.
  for (let attempt = 1; ; attempt++) {
    const dir = await mkdtemp(join(tmpdir(), 'quad-pod-ssh-'));
    let started: Started;
    try {
      await layOutImage(dir, options.podhostLogin ?? true);
      started = await startNamespace(dir, await freePort(), env);
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    if (started.ok) {
      const pod = fakePod(dir, started.port, started.child);
      await podStarted(dir, options.extraAuthorizedKeys ?? []).catch(async (err: unknown) => { await pod.close(); throw err; });
      return pod;
    }
    await rm(dir, { recursive: true, force: true });
    if (!started.portTaken || attempt === PORT_ATTEMPTS) throw new Error(`fake pod sshd did not start: ${started.log.trim()}`);
  }
}

/**
 * The pod's root: the overlay's folders, its upper layer starting as the image's rootfs/, owned by root and writable
 * by root only whatever the checkout's owner and umask, as the Dockerfile's COPY and chmod leave them.
 */
async function layOutImage(dir: string, podhostLogin: boolean): Promise<void> {
  for (const name of ['root', 'work', 'mnt']) await mkdir(join(dir, name));
  await run('cp', ['-R', '--preserve=mode', `${await realpath(IMAGE_ROOTFS)}/.`, join(dir, 'root')]);
  await run('chmod', ['-R', 'go-w', join(dir, 'root')]);
  if (!podhostLogin) await rm(join(dir, 'root', 'usr', 'local', 'bin', 'podhost-login'));
}

/** The environment Quad and the provider give a pod: the contract's variables and the provider's RUNPOD_POD_ID. */
function podEnvironment(options: PodSshOptions, hostKey: { privateKey: string; certificate: string }): Record<string, string> {
  return {
    PATH,
    PODHOST_SSH_PUBLIC_KEY: options.backendPublicKey,
    PODHOST_SSH_CA_PUBLIC_KEY: options.userCaPublicKey,
    PODHOST_SSH_HOST_KEY: hostKey.privateKey,
    PODHOST_SSH_HOST_CERTIFICATE: hostKey.certificate,
    PODHOST_SETUP: options.setupVersion ?? POD_CONTRACT_VERSION,
    RUNPOD_POD_ID: options.podId,
  };
}

/** An impostor's host key: its own, certified by a host CA of its own (so the image's entrypoint serves it). */
async function impostorHostKey(): Promise<{ privateKey: string; certificate: string }> {
  const keys = await mkdtemp(join(tmpdir(), 'quad-pod-impostor-'));
  try {
    const key = join(keys, 'host_key');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'fake-pod-host', '-f', key]);
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'impostor-ca', '-f', join(keys, 'ca')]);
    await run('ssh-keygen', ['-q', '-s', join(keys, 'ca'), '-h', '-I', 'impostor', '-n', 'podhost-impostor', `${key}.pub`]);
    const [privateKey, certificate] = await Promise.all([readFile(key, 'utf8'), readFile(`${key}-cert.pub`, 'utf8')]);
    return { privateKey, certificate };
  } finally {
    await rm(keys, { recursive: true, force: true });
  }
}

/** Once sshd listens: the tests' own keys for root, and the pod's authorized_keys at the folder's top. */
async function podStarted(dir: string, extraAuthorizedKeys: string[]): Promise<void> {
  const authorizedKeys = join(dir, 'root', POD_AUTHORIZED_KEYS);
  if (extraAuthorizedKeys.length) await appendFile(authorizedKeys, extraAuthorizedKeys.map((k) => `${k.trim()}\n`).join(''));
  await symlink(authorizedKeys, join(dir, 'authorized_keys'));
}

/** A port nothing listens on now (another process may take it before sshd does: the caller retries). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type Started = { ok: true; child: ChildProcess; port: number } | { ok: false; portTaken: boolean; log: string };

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * unshare runs a shell as the namespace's first process: it mounts the pod's root, starts the image's entrypoint
 * chrooted in it (which becomes sshd) and then blocks reading its stdin (our pipe); the entrypoint gets /dev/null
 * instead, so the pod's sessions never hold the pipe open. The pod's environment reaches the entrypoint through the
 * shell's own, never through the script's text.
 */
async function startNamespace(dir: string, port: number, env: Record<string, string>): Promise<Started> {
  const [root, upper, work, temp] = [join(dir, 'mnt'), join(dir, 'root'), join(dir, 'work'), await realpath(tmpdir())];
  const script = [
    'set -e',
    `mount -t overlay overlay -o ${quote(`lowerdir=/,upperdir=${upper},workdir=${work}`)} ${quote(root)}`,
    `mount -t proc proc ${quote(`${root}/proc`)}`,
    `mount --rbind /dev ${quote(`${root}/dev`)}`,
    `mount --bind ${quote(temp)} ${quote(`${root}${temp}`)}`,
    `(chroot ${quote(root)} ${ENTRYPOINT} -o ListenAddress=127.0.0.1:${port} </dev/null || echo "${EXITED_MARK} ($?)" >&2) &`,
    'read -r _ || true',
    // Also when the test process died without close(): the pod's processes, then its root, then the folder.
    'kill -KILL -1 2>/dev/null || true',
    `umount -l ${quote(root)} || true`,
    `rm -rf --one-file-system ${quote(dir)}`,
  ].join('\n');
  const child = spawn('unshare', ['--mount', '--pid', '--fork', '--propagation', 'private', '--kill-child', 'sh', '-c', script], {
    stdio: ['pipe', 'ignore', 'pipe'], env,
  });
  child.stdin!.on('error', () => {}); // the shell may be gone already (a mount refused): its exit says enough
  let log = '';
  return new Promise<Started>((resolve) => {
    const timer = setTimeout(() => finish({ ok: false, portTaken: false, log: `${log}(no "Server listening" within ${START_TIMEOUT_MS} ms)` }), START_TIMEOUT_MS);
    const finish = (started: Started) => {
      clearTimeout(timer);
      child.stderr!.removeListener('data', onData);
      child.removeListener('exit', onExit);
      // Keep draining the pod's log so sshd never blocks on a full pipe; POD_SSH_DEBUG=1 shows it on this stderr.
      if (process.env.POD_SSH_DEBUG) child.stderr!.pipe(process.stderr);
      else child.stderr!.resume();
      if (started.ok) return resolve(started);
      // A pod that did not start: its first shell cleans up as at close(), and the folder is the caller's again.
      void stopNamespace(child).then(() => resolve(started));
    };
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (/Server listening on/.test(log)) finish({ ok: true, child, port });
      else if (/Cannot bind any address|Address already in use/.test(log)) finish({ ok: false, portTaken: true, log });
      else if (log.includes(EXITED_MARK)) finish({ ok: false, portTaken: false, log });
    };
    const onExit = () => finish({ ok: false, portTaken: /Address already in use|Cannot bind/.test(log), log });
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * Ends the namespace: its first shell reads EOF, kills the pod's processes, unmounts its root and removes its folder;
 * after 5 s unshare is killed (--kill-child then kills the namespace, and the kernel every process in it).
 */
async function stopNamespace(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  child.stdin!.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

function fakePod(dir: string, port: number, child: ChildProcess): FakePodSsh {
  let closing: Promise<void> | null = null;
  return {
    host: '127.0.0.1', port, dir,
    close() {
      closing ??= (async () => {
        await stopNamespace(child);
        await rm(dir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}
