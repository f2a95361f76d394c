// The service's SSH to a pod (spec "File routes", "Officer pod routes": the connected route): ssh2's Client logs in
// as root with the org's backend key (OpenSSH private key text), to a host that proves it holds the pod's own host
// key (issue 38). ssh2 cannot negotiate OpenSSH host certificates (its host key algorithms are plain keys only), so
// rather than checking the certificate against the org's host CA, it pins the exact host public key Quad certified
// at the pod's create (host-keys.ts) and negotiates only that key's algorithm: any other key is refused before the
// login is sent. Every operation has a time limit that covers connecting too; any failure of the connection becomes
// PodSshFailed with a short message naming no address.
import { Client, type ClientChannel, type ServerHostKeyAlgorithm, type SFTPWrapper } from 'ssh2';
import { PodSshFailed } from './errors.js';

export interface PodLogin {
  host: string;
  port: number;
  /** The org's backend private key, OpenSSH text. */
  privateKey: string;
  /** The pod's certified host public key (`ssh-ed25519 AAAA…`): the only host key accepted. */
  hostKey: string;
  /** Longest wait for the connection, the handshake and the login (PODHOST_SSH_CONNECT_TIMEOUT_MS). Default: CONNECT_TIMEOUT_MS. */
  connectTimeoutMs?: number;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  /** Null when the command ended by a signal. */
  code: number | null;
  /** Output beyond the cap was dropped. */
  truncated: boolean;
}

/** Longest wait for the TCP connection, the handshake and the login: the default of PODHOST_SSH_CONNECT_TIMEOUT_MS. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** Output kept per stream of one command. */
export const EXEC_OUTPUT_MAX_BYTES = 4 * 1024 * 1024;

/** One SSH connection to a pod, as root. Open it with withPodSsh, or openPodSession when a stream outlives the call. */
export class PodSession {
  private readonly client = new Client();
  private sftpChannel: Promise<SFTPWrapper> | null = null;
  private lost: PodSshFailed | null = null;
  /**
   * Fails with PodSshFailed once the connection has ended. ssh2 leaves some calls on a dead connection unanswered
   * (a failed SFTP write first closes its file handle, and waits for that answer forever), so work on the pod is
   * raced against this: a lost connection fails it at once, not when its time limit runs out.
   */
  readonly ended: Promise<never>;

  constructor() {
    // ssh2 emits 'error' after login too (a reset connection); without a listener it would crash the process.
    this.client.on('error', (err) => { this.lost ??= connectionFailure(err); });
    this.ended = new Promise<never>((_, reject) => {
      this.client.once('close', () => reject(this.lost ?? new PodSshFailed('The SSH connection to the pod was lost', 'lost')));
    });
    this.ended.catch(() => {}); // heard only by work in progress; a session closed after its work is no failure
  }

  /**
   * Connects and logs in; PodSshFailed when the pod cannot be reached or refuses the key. ssh2 gives up after the
   * login's connectTimeoutMs; the caller's own time limit (withinLimit) may end it sooner.
   */
  connect(login: PodLogin): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => { this.client.removeListener('ready', onReady); reject(connectionFailure(err)); };
      const onReady = () => { this.client.removeListener('error', onError); resolve(); };
      this.client.once('error', onError).once('ready', onReady);
      const pinned = pinnedHostKey(login.hostKey);
      this.client.connect({
        host: login.host, port: login.port, username: 'root', privateKey: login.privateKey,
        algorithms: { serverHostKey: [pinned.algorithm] },
        // ssh2 has checked the host's signature of the handshake with this key before asking.
        hostVerifier: (key: Buffer) => key.equals(pinned.blob),
        readyTimeout: login.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      });
      // SSH is a conversation of small messages: with Nagle's algorithm on, each of ssh2's split writes waited for
      // the peer's delayed ACK (40 ms on Linux), so a login and an SFTP call took about 600 ms on loopback instead
      // of 50. OpenSSH's own client turns it off too.
      this.client.setNoDelay(true);
    });
  }

  /** Runs a command through root's shell; stdout and stderr are each kept up to EXEC_OUTPUT_MAX_BYTES. */
  exec(command: string): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      this.client.exec(command, (err: Error | undefined, channel: ClientChannel) => {
        if (err) return reject(this.lost ?? new PodSshFailed('The pod refused to run a command over SSH', 'lost', { cause: err }));
        const stdout = new Capped();
        const stderr = new Capped();
        let code: number | null | undefined;
        channel.on('data', (chunk: Buffer) => stdout.add(chunk));
        channel.stderr.on('data', (chunk: Buffer) => stderr.add(chunk));
        channel.on('exit', (exitCode: number | null) => { code = exitCode; });
        channel.on('close', () => {
          // No exit status means the connection went away under the command.
          if (code === undefined) return reject(this.lost ?? new PodSshFailed('The SSH connection to the pod was lost', 'lost'));
          resolve({ stdout: stdout.text(), stderr: stderr.text(), code, truncated: stdout.truncated || stderr.truncated });
        });
      });
    });
  }

  /** The connection's SFTP channel (one per session). */
  sftp(): Promise<SFTPWrapper> {
    this.sftpChannel ??= new Promise((resolve, reject) => {
      this.client.sftp((err, sftp) => {
        if (err) reject(this.lost ?? new PodSshFailed('The pod refused SFTP', 'lost', { cause: err }));
        else resolve(sftp);
      });
    });
    return this.sftpChannel;
  }

  close(): void {
    this.client.end();
  }

  /** Closes at once, whatever is under way (its pending calls fail). */
  destroy(): void {
    this.client.destroy();
  }
}

/** Opens a session that the caller closes (for a download, whose stream outlives the route's handler). */
export async function openPodSession(login: PodLogin, timeoutMs = login.connectTimeoutMs ?? CONNECT_TIMEOUT_MS): Promise<PodSession> {
  const session = new PodSession();
  try {
    await withinLimit(session.connect(login), timeoutMs, () => session.destroy());
  } catch (err) {
    session.destroy();
    throw err;
  }
  return session;
}

/**
 * Connects, runs `work` and closes, all within limitMs: when the limit runs out the connection is torn down (so
 * whatever work was doing fails too) and the call fails with PodSshFailed `timeout`; when the connection is lost
 * first, the call fails at once with why.
 */
export async function withPodSsh<T>(login: PodLogin, limitMs: number, work: (session: PodSession) => Promise<T>): Promise<T> {
  const session = new PodSession();
  try {
    const task = session.connect(login).then(() => work(session));
    task.catch(() => {}); // when the connection's end wins the race, the work's own failure comes later, unheard
    return await withinLimit(Promise.race([task, session.ended]), limitMs, () => session.destroy());
  } finally {
    session.close();
  }
}

/** The task's result, or PodSshFailed `timeout` after limitMs (then `onTimeout` runs to stop the task). */
export async function withinLimit<T>(task: Promise<T>, limitMs: number, onTimeout: () => void): Promise<T> {
  // When the limit wins, the task still fails later (its connection was torn down): that failure is expected.
  task.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new PodSshFailed(`The pod did not answer over SSH within ${Math.round(limitMs / 1000)} seconds`, 'timeout'));
    }, limitMs);
  });
  try {
    return await Promise.race([task, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** A host public key's algorithm and wire form (its base64 part), from its OpenSSH text. */
export function pinnedHostKey(text: string): { algorithm: ServerHostKeyAlgorithm; blob: Buffer } {
  const [algorithm, base64] = text.trim().split(/\s+/);
  const blob = Buffer.from(base64 ?? '', 'base64');
  // The wire form starts with its own type (RFC 4253 §6.6): a pinned key must be the key it says it is.
  if (!algorithm || blob.length < 4 || blob.subarray(4, 4 + blob.readUInt32BE(0)).toString() !== algorithm) throw new Error('not an OpenSSH public key');
  return { algorithm: algorithm as ServerHostKeyAlgorithm, blob };
}

/** ssh2's error as a short sentence: its own message names the address (e.g. `connect ECONNREFUSED 10.0.0.5:22`). */
function connectionFailure(err: Error & { level?: string; code?: string }): PodSshFailed {
  if (err.level === 'client-authentication') return new PodSshFailed('The pod refused the service\'s SSH key', 'auth', { cause: err });
  // The host offered another key (verification failed), or none of the pinned key's algorithm.
  if (err.level === 'handshake' && /Host denied|no matching host key/i.test(err.message)) {
    return new PodSshFailed('The pod\'s SSH host key is not the one Quad certified for it (another host may be answering at its address)', 'host_key', { cause: err });
  }
  if (err.level === 'client-timeout') return new PodSshFailed('The pod did not finish the SSH handshake in time', 'timeout', { cause: err });
  if (err.code === 'ECONNREFUSED') return new PodSshFailed('The pod refused the SSH connection', 'connect', { cause: err });
  if (err.code === 'ECONNRESET') return new PodSshFailed('The pod closed the SSH connection', 'lost', { cause: err });
  if (err.code === 'ETIMEDOUT' || err.code === 'EHOSTUNREACH' || err.code === 'ENETUNREACH') {
    return new PodSshFailed('The pod cannot be reached over SSH', 'connect', { cause: err });
  }
  return new PodSshFailed('The SSH connection to the pod failed', 'connect', { cause: err });
}

/** Bytes of one output stream, up to EXEC_OUTPUT_MAX_BYTES. */
class Capped {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  add(chunk: Buffer): void {
    const room = EXEC_OUTPUT_MAX_BYTES - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
