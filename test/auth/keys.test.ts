// The token key pair and the cookie key in DATA_DIR: processes starting at once on a fresh folder (an API and a
// worker sharing a volume) all end up with the same whole keys, and the public key always matches the private one.
import { execFile } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { CODE_EXT, nodeCommand } from '../../core/src/testing/commands.js';
import { loadOrCreateKeyPair, loadOrCreateSecretKey } from '../../core/src/auth/keys.js';

/** A node process, on the code the tests run (see testing/commands.ts), to its end. */
function node(args: string[]) {
  const [file, ...rest] = nodeCommand(...args);
  return promisify(execFile)(file, rest);
}
const KEYS = new URL(`../../core/src/auth/keys${CODE_EXT}`, import.meta.url).href;

function freshDir(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'quad-keys-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'data');
}

t.test('processes starting at once agree on one whole pair and one cookie key', async (t) => {
  const dataDir = freshDir(t);
  const script = `
    const { loadOrCreateKeyPair, loadOrCreateSecretKey } = await import(${JSON.stringify(KEYS)});
    const pair = loadOrCreateKeyPair(process.argv[1]);
    const secret = loadOrCreateSecretKey(process.argv[1], undefined, () => require('node:crypto').randomBytes(32).toString('base64url'));
    console.log(JSON.stringify({ ...pair, secret }));`;
  const results = await Promise.all(Array.from({ length: 6 }, () =>
    node(['--input-type=commonjs', '-e', `(async () => {${script}})()`, dataDir])));
  const seen = results.map((r) => JSON.parse(r.stdout) as { privateKey: string; publicKey: string; secret: string });
  const onDisk = { privateKey: readFileSync(join(dataDir, 'jwt_private.pem'), 'utf8'), publicKey: readFileSync(join(dataDir, 'jwt_public.pem'), 'utf8') };
  t.same(new Set(seen.map((s) => s.privateKey)), new Set([onDisk.privateKey]), 'every process has the private key on disk');
  t.same(new Set(seen.map((s) => s.publicKey)), new Set([onDisk.publicKey]), 'and the public key on disk');
  t.equal(createPublicKey(onDisk.privateKey).export({ type: 'spki', format: 'pem' }), onDisk.publicKey, 'which is the private key\'s');
  t.equal(new Set(seen.map((s) => s.secret)).size, 1, 'one cookie key');
  t.ok(seen[0]!.secret.length >= 32);
  t.equal(statSync(join(dataDir, 'jwt_private.pem')).mode & 0o777, 0o600, 'the private key is readable by its owner only');
  t.equal(statSync(join(dataDir, 'secret_key')).mode & 0o777, 0o600);
});

t.test('a copied private key without its public key: the public key is derived and written', async (t) => {
  const dataDir = freshDir(t);
  const first = loadOrCreateKeyPair(dataDir);
  unlinkSync(join(dataDir, 'jwt_public.pem'));
  t.same(loadOrCreateKeyPair(dataDir), first);
  t.equal(readFileSync(join(dataDir, 'jwt_public.pem'), 'utf8'), first.publicKey);
});

t.test('an existing cookie key is read as it is; SECRET_KEY wins', async (t) => {
  const dataDir = freshDir(t);
  loadOrCreateKeyPair(dataDir);
  writeFileSync(join(dataDir, 'secret_key'), 'kept-from-an-earlier-start-0123456789\n');
  t.equal(loadOrCreateSecretKey(dataDir, undefined, () => 'never'), 'kept-from-an-earlier-start-0123456789');
  t.equal(loadOrCreateSecretKey(dataDir, 'configured-key-0123456789-0123456789', () => 'never'), 'configured-key-0123456789-0123456789');
});
