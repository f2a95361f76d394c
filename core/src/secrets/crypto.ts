// AES-256-GCM for org secrets. SECRETS_KEY lists 32-byte keys, newest first: the first encrypts, any decrypts.
// A stored value is `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts): the key id (first 8 hex chars of
// SHA-256 of the key) picks the key, the IV is 12 random bytes per encryption, the tag is GCM's 16 bytes.
// The additional authenticated data binds the value to its org and name: a row copied elsewhere does not decrypt.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError } from '../config/load.js';
import { GENERATE_KEY_HINT } from '../config/schema.js';

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';

export { GENERATE_KEY_HINT };

export interface SecretKey {
  /** First 8 hex chars of SHA-256 of the key: names the key in stored values without revealing it. */
  readonly id: string;
  readonly key: Buffer;
}

/** Why a stored value could not be decrypted. Never carries the value. */
export class SecretDecryptError extends Error {
  constructor(message: string, readonly reason: 'secret_key_unknown' | 'secret_undecryptable') {
    super(message);
    this.name = 'SecretDecryptError';
  }
}

export const keyId = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

/**
 * Decode SECRETS_KEY (base64 or base64url strings). Every key must decode to exactly 32 bytes; one ConfigError
 * names each bad entry (never its value). A key listed twice is kept once.
 */
export function parseSecretKeys(values: readonly string[]): SecretKey[] {
  const problems: string[] = [];
  const keys: SecretKey[] = [];
  values.forEach((raw, i) => {
    const value = raw.trim();
    const where = `SECRETS_KEY[${i}]`;
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
      problems.push(`${where}: must be base64 or base64url (32 random bytes); ${GENERATE_KEY_HINT}`);
      return;
    }
    const key = Buffer.from(value, 'base64'); // Node's base64 decoder reads base64url too
    if (key.length !== KEY_BYTES) {
      problems.push(`${where}: must decode to exactly ${KEY_BYTES} bytes, got ${key.length}; ${GENERATE_KEY_HINT}`);
      return;
    }
    const id = keyId(key);
    if (!keys.some((k) => k.id === id && k.key.equals(key))) keys.push({ id, key });
  });
  if (problems.length) throw new ConfigError(problems);
  return keys;
}

/** The additional authenticated data of a secret: its org and name (and the format version). */
export function secretAad(orgId: number, name: string): Buffer {
  return Buffer.from(`quad.org_secrets.${VERSION}\0${orgId}\0${name}`, 'utf8');
}

/** The additional authenticated data of a module's sealed value: its context (module, purpose, owner). */
export function sealedAad(context: string): Buffer {
  return Buffer.from(`quad.sealed.${VERSION}\0${context}`, 'utf8');
}

/** Encrypt with the first (newest) key. */
export function encryptSecret(keys: readonly SecretKey[], plaintext: string, aad: Buffer): { ciphertext: string; keyId: string } {
  const current = keys[0];
  if (!current) throw new Error('encryptSecret: no key');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', current.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  const parts = [VERSION, current.id, iv.toString('base64url'), tag.toString('base64url'), data.toString('base64url')];
  return { ciphertext: parts.join('.'), keyId: current.id };
}

/** The key id a stored value names, or null when the value is not in a known format. */
export function storedKeyId(stored: string): string | null {
  const parts = stored.split('.');
  return parts.length === 5 && parts[0] === VERSION ? parts[1] : null;
}

/**
 * Decrypt a stored value with whichever listed key it names. `label` describes the secret in errors
 * (e.g. `"github.token" of org 3`). Throws SecretDecryptError when the key is no longer listed, or when the
 * value does not authenticate (tampered, copied to another org or name, or a different key with the same id).
 */
export function decryptSecret(keys: readonly SecretKey[], stored: string, aad: Buffer, label: string): string {
  const parts = stored.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) {
    throw new SecretDecryptError(`Secret ${label} is not in a format this version can read`, 'secret_undecryptable');
  }
  const [, id, ivText, tagText, dataText] = parts;
  const candidates = keys.filter((k) => k.id === id);
  if (!candidates.length) {
    throw new SecretDecryptError(
      `Secret ${label} was encrypted with key ${id}, which SECRETS_KEY no longer lists: add that key back (after the newest) or set the secret again`,
      'secret_key_unknown',
    );
  }
  const iv = Buffer.from(ivText, 'base64url');
  const tag = Buffer.from(tagText, 'base64url');
  const data = Buffer.from(dataText, 'base64url');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new SecretDecryptError(`Secret ${label} is damaged (bad IV or tag length)`, 'secret_undecryptable');
  }
  for (const candidate of candidates) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', candidate.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
    } catch {
      // Authentication failed with this key; try another key with the same id (a 32-bit id may collide).
    }
  }
  throw new SecretDecryptError(
    `Secret ${label} does not authenticate: it was changed, copied from another org or name, or encrypted with a different key`,
    'secret_undecryptable',
  );
}
