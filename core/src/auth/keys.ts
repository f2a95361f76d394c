// The RS256 key pair of access and app tokens: DATA_DIR/jwt_private.pem and jwt_public.pem, created at
// first start. Deleting them invalidates every token. Several processes starting at once agree on one pair.
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KeyPair { privateKey: string; publicKey: string }

/**
 * The private key is the pair: whichever process publishes it first wins, and every process derives the public key
 * from it (jwt_public.pem is written for operators and other services, never read back), so no process can read a
 * half-written file or a public key of another pair.
 */
export function loadOrCreateKeyPair(dataDir: string): KeyPair {
  mkdirSync(dataDir, { recursive: true });
  const privateKey = readOrPublish(join(dataDir, 'jwt_private.pem'), 0o600, () => generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey);
  const publicKey = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }) as string;
  const publicPath = join(dataDir, 'jwt_public.pem');
  if (!existsSync(publicPath)) {
    // Every process writes the same text; a rename puts it in place whole.
    const temporary = temporaryName(publicPath);
    writeFileSync(temporary, publicKey, { mode: 0o644 });
    renameSync(temporary, publicPath);
  }
  return { privateKey, publicKey };
}

/** SECRET_KEY, or a random one kept in DATA_DIR/secret_key (set SECRET_KEY when several machines serve). */
export function loadOrCreateSecretKey(dataDir: string, configured: string | undefined, make: () => string): string {
  if (configured) return configured;
  mkdirSync(dataDir, { recursive: true });
  return readOrPublish(join(dataDir, 'secret_key'), 0o600, make).trim();
}

/**
 * The file's text; when there is none yet, `make()`'s, published whole: written under a temporary name and linked
 * into place, which fails if another process published first (then theirs is read). A file never appears empty or
 * half-written to a process starting at the same moment.
 */
function readOrPublish(path: string, mode: number, make: () => string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const temporary = temporaryName(path);
  writeFileSync(temporary, make(), { flag: 'wx', mode });
  try {
    linkSync(temporary, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temporary);
  }
  return readFileSync(path, 'utf8');
}

const temporaryName = (path: string) => `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
