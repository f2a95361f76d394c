// SSH certificates, signed with sshpk. User certificates (spec "Records": certificate): signed by the org's user_ca,
// for one pod (principal gf-<pod_id>), valid from 5 minutes before issue (clocks drift) to 12 hours after. A member's
// forces `/usr/local/bin/podhost-login <username>` (the pod image puts the member in their own account and folder)
// and permits a terminal only: no port, agent or X11 forwarding (issue 38: `ssh -N -L` runs no command, so a forced
// command does not confine forwarding, and forwarded connections would come from root). An officer's logs in as root
// with no forced command and OpenSSH's default permissions. Host certificates (issue 38): signed by the org's host_ca
// for one pod's host key at its create. Tested against OpenSSH's own ssh-keygen -L, sshd and ssh.
import { randomBytes } from 'node:crypto';
import sshpk from 'sshpk';
import { badRequest } from '@quad/core';

export const CERT_VALID_BEFORE_MS = 5 * 60_000;
export const CERT_VALID_FOR_MS = 12 * 3_600_000;
export const PODHOST_LOGIN = '/usr/local/bin/podhost-login';
/** The key types a member may bring (RSA under 2048 bits is refused: OpenSSH refuses it too). */
const ACCEPTED_KEYS = new Set(['ed25519', 'ecdsa', 'rsa']);
const MIN_RSA_BITS = 2048;

export const principalOf = (podId: string) => `gf-${podId}`;

/** A member's SSH public key (`ssh-ed25519 AAAA… comment`), or 400 invalid_public_key saying why. */
export function parsePublicKey(text: string): sshpk.Key {
  let key: sshpk.Key;
  try {
    key = sshpk.parseKey(text.trim(), 'ssh');
  } catch {
    throw badRequest('public_key is not an OpenSSH public key ("ssh-ed25519 AAAA…", as in ~/.ssh/id_ed25519.pub)', 'invalid_public_key', { field: 'public_key' });
  }
  if (!ACCEPTED_KEYS.has(key.type) || (key.type === 'rsa' && key.size < MIN_RSA_BITS)) {
    throw badRequest(`public_key: a ${key.type}${key.type === 'rsa' ? ` key of ${key.size} bits` : ''} key is not accepted; use ed25519`, 'invalid_public_key', { field: 'public_key' });
  }
  return key;
}

export interface CertificateRequest {
  podId: string;
  /** The member's public key (parsePublicKey). */
  key: sshpk.Key;
  /** The user CA's private key (OpenSSH format). */
  caPrivateKey: string;
  /** Shown in sshd's log line for each login (`ID <key id>`), so an officer can tell who logged in. */
  keyId: string;
  /** A member's username (forced into podhost-login), or null for an officer's root certificate. */
  memberUsername: string | null;
  now?: Date;
}

export interface IssuedCertificate { certificate: string; validFrom: Date; validUntil: Date; serial: string }

// The permissions OpenSSH grants by default (ssh-keygen -O), sorted by name as the format requires. Members get a
// terminal only: sshd refuses their forwarding requests (-L, -R, -D, -W, Unix sockets, agent, X11) for the missing
// extension, whatever the pod's sshd_config says. Both log in as root, so sshd_config cannot tell them apart: the
// certificate is the wall.
const OFFICER_EXTENSIONS = ['permit-X11-forwarding', 'permit-agent-forwarding', 'permit-port-forwarding', 'permit-pty', 'permit-user-rc'];
const MEMBER_EXTENSIONS = ['permit-pty'];

/** An SSH string (uint32 length, bytes): the wire form of a critical option's value. */
function sshString(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

export function issueCertificate(request: CertificateRequest): IssuedCertificate {
  const now = request.now ?? new Date();
  const validFrom = new Date(now.getTime() - CERT_VALID_BEFORE_MS);
  const validUntil = new Date(now.getTime() + CERT_VALID_FOR_MS);
  const ca = sshpk.parsePrivateKey(request.caPrivateKey, 'ssh');
  const serial = randomBytes(8);
  const cert = sshpk.createCertificate(sshpk.identityForUser(principalOf(request.podId)), request.key, sshpk.identityForUser('podhost-ca'), ca, { validFrom, validUntil, serial });
  const critical = request.memberUsername === null ? [] : [{ critical: true, name: 'force-command', data: sshString(`${PODHOST_LOGIN} ${request.memberUsername}`) }];
  const extensions = (request.memberUsername === null ? OFFICER_EXTENSIONS : MEMBER_EXTENSIONS).map((name) => ({ critical: false, name, data: Buffer.alloc(0) }));
  // sshpk writes the OpenSSH fields it is given (options, extensions, key id) and signs them: sign again after setting them.
  Object.assign(cert.signatures.openssh!, { keyId: request.keyId, exts: [...critical, ...extensions] });
  cert.signWith(ca);
  return { certificate: cert.toString('openssh'), validFrom, validUntil, serial: serial.toString('hex') };
}

/** A pod's host certificate is valid from 5 minutes before its create for the pod's whole life (it is revoked by
 * terminating the pod: no other pod is ever certified for its name). */
const HOST_CERT_VALID_UNTIL = new Date('9999-12-31T23:59:59Z');

export interface HostCertificateRequest {
  /** The pod's host public key (OpenSSH text). */
  hostPublicKey: string;
  /** The one name it is certified for (host-keys.ts: podhost-<create id>). */
  principal: string;
  /** The host CA's private key (OpenSSH format). */
  caPrivateKey: string;
  /** Shown by `ssh-keygen -L` (and in ssh -v): which org and pod. */
  keyId: string;
  now?: Date;
}

/** An OpenSSH host certificate (`ssh-ed25519-cert-v01@openssh.com AAAA…`) for one pod's host key. */
export function issueHostCertificate(request: HostCertificateRequest): string {
  const now = request.now ?? new Date();
  const ca = sshpk.parsePrivateKey(request.caPrivateKey, 'ssh');
  const key = sshpk.parseKey(request.hostPublicKey, 'ssh');
  const cert = sshpk.createCertificate(sshpk.identityForHost(request.principal), key, sshpk.identityForHost('podhost-host-ca'), ca, {
    validFrom: new Date(now.getTime() - CERT_VALID_BEFORE_MS), validUntil: HOST_CERT_VALID_UNTIL, serial: randomBytes(8),
  });
  Object.assign(cert.signatures.openssh!, { keyId: request.keyId, exts: [] });
  cert.signWith(ca);
  return cert.toString('openssh');
}
