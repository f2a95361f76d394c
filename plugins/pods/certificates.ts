// SSH user certificates (spec "Records": certificate): signed by the org's user_ca with sshpk, for one pod (principal
// gf-<pod_id>), valid from 5 minutes before issue (clocks drift) to 12 hours after. A member's certificate forces
// `/usr/local/bin/podhost-login <username>` (the pod image puts the member in their own account and folder); an
// officer's logs in as root with no forced command. Tested against OpenSSH's own ssh-keygen -L and sshd.
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
// terminal and port forwarding (a notebook on the pod, say), not agent or X11 forwarding or ~/.ssh/rc.
const OFFICER_EXTENSIONS = ['permit-X11-forwarding', 'permit-agent-forwarding', 'permit-port-forwarding', 'permit-pty', 'permit-user-rc'];
const MEMBER_EXTENSIONS = ['permit-port-forwarding', 'permit-pty'];

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
