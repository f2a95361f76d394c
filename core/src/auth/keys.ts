// The RS256 key pair of access and app tokens: DATA_DIR/jwt_private.pem and jwt_public.pem, created at
// first start. Deleting them invalidates every token. Several processes starting at once agree on one pair.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KeyPair { privateKey: string; publicKey: string }

export function loadOrCreateKeyPair(dataDir: string): KeyPair {
  mkdirSync(dataDir, { recursive: true });
  const privatePath = join(dataDir, 'jwt_private.pem');
  const publicPath = join(dataDir, 'jwt_public.pem');
  try {
    return { privateKey: readFileSync(privatePath, 'utf8'), publicKey: readFileSync(publicPath, 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const pair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  try {
    // 'wx' fails if another process wrote the key first; then we use theirs.
    writeFileSync(privatePath, pair.privateKey, { flag: 'wx', mode: 0o600 });
    writeFileSync(publicPath, pair.publicKey, { mode: 0o644 });
    return pair;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return loadOrCreateKeyPair(dataDir);
  }
}

/** SECRET_KEY, or a random one kept in DATA_DIR/secret_key (set SECRET_KEY when several machines serve). */
export function loadOrCreateSecretKey(dataDir: string, configured: string | undefined, make: () => string): string {
  if (configured) return configured;
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'secret_key');
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  try {
    writeFileSync(path, make(), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return readFileSync(path, 'utf8').trim();
}
