// AES-256-GCM of org secrets without a database: key parsing, round trip, random IVs, AAD binding, key ids.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import {
  decryptSecret, encryptSecret, keyId, parseSecretKeys, secretAad, storedKeyId,
} from '../../core/src/secrets/crypto.js';

const keyA = randomBytes(32);
const keyB = randomBytes(32);

t.test('SECRETS_KEY entries must be 32 bytes of base64 or base64url', async (t) => {
  const keys = parseSecretKeys([keyA.toString('base64'), keyB.toString('base64url')]);
  t.same(keys.map((k) => k.id), [keyId(keyA), keyId(keyB)]);
  t.match(keys[0].id, /^[0-9a-f]{8}$/);
  t.ok(keys[1].key.equals(keyB), 'base64url decodes');
  t.same(parseSecretKeys([]), []);
  t.equal(parseSecretKeys([keyA.toString('base64'), keyA.toString('base64url')]).length, 1, 'a key listed twice is kept once');

  const long = randomBytes(48).toString('base64');
  const err = t.throws(() => parseSecretKeys([keyA.toString('base64'), long, 'not base64!']), { name: 'ConfigError' }) as Error & { problems: string[] };
  t.equal(err.problems.length, 2, 'every bad entry is named');
  t.match(err.problems[0], /^SECRETS_KEY\[1\]: must decode to exactly 32 bytes, got 48/);
  t.match(err.problems[1], /^SECRETS_KEY\[2\]: must be base64/);
  t.match(err.message, /randomBytes\(32\)/, 'the message says how to generate a key');
  t.notOk(err.message.includes(long), 'the message does not print the key');
});

t.test('round trip, random IVs and the stored format', async (t) => {
  const keys = parseSecretKeys([keyA.toString('base64')]);
  const aad = secretAad(1, 'github.token');
  const a = encryptSecret(keys, 'ghp_secret ✓', aad);
  const b = encryptSecret(keys, 'ghp_secret ✓', aad);
  t.not(a.ciphertext, b.ciphertext, 'equal values encrypt differently');
  t.equal(a.keyId, keyId(keyA));
  t.equal(storedKeyId(a.ciphertext), keyId(keyA));
  t.match(a.ciphertext, /^v1\.[0-9a-f]{8}\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/, 'version, key id, 12-byte IV, 16-byte tag, data');
  t.notOk(a.ciphertext.includes('ghp_secret'));
  t.equal(decryptSecret(keys, a.ciphertext, aad, 'x'), 'ghp_secret ✓');
  t.equal(decryptSecret(keys, encryptSecret(keys, '', aad).ciphertext, aad, 'x'), '');
});

t.test('the additional data binds a value to its org and name', async (t) => {
  const keys = parseSecretKeys([keyA.toString('base64')]);
  const { ciphertext } = encryptSecret(keys, 'v', secretAad(1, 'github.token'));
  t.throws(() => decryptSecret(keys, ciphertext, secretAad(2, 'github.token'), '"github.token" of org 2'), { name: 'SecretDecryptError', reason: 'secret_undecryptable' });
  t.throws(() => decryptSecret(keys, ciphertext, secretAad(1, 'demo.webhook'), 'x'), { name: 'SecretDecryptError', reason: 'secret_undecryptable' });
  // A flipped bit anywhere in the data or tag is refused.
  const parts = ciphertext.split('.');
  const flip = (s: string) => { const buf = Buffer.from(s, 'base64url'); buf[0] ^= 1; return buf.toString('base64url'); };
  t.throws(() => decryptSecret(keys, [...parts.slice(0, 4), flip(parts[4])].join('.'), secretAad(1, 'github.token'), 'x'), { name: 'SecretDecryptError', reason: 'secret_undecryptable' });
  t.throws(() => decryptSecret(keys, [...parts.slice(0, 3), flip(parts[3]), parts[4]].join('.'), secretAad(1, 'github.token'), 'x'), { name: 'SecretDecryptError', reason: 'secret_undecryptable' });
  t.throws(() => decryptSecret(keys, 'garbage', secretAad(1, 'github.token'), 'x'), { name: 'SecretDecryptError', reason: 'secret_undecryptable' });
});

t.test('rotation: the first key encrypts, every listed key decrypts', async (t) => {
  const aad = secretAad(1, 'github.token');
  const old = encryptSecret(parseSecretKeys([keyA.toString('base64')]), 'v', aad);
  const rotated = parseSecretKeys([keyB.toString('base64'), keyA.toString('base64')]);
  t.equal(decryptSecret(rotated, old.ciphertext, aad, 'x'), 'v', 'the old key, second in the list, still decrypts');
  const fresh = encryptSecret(rotated, 'v', aad);
  t.equal(fresh.keyId, keyId(keyB), 'new values use the first key');
  const onlyB = parseSecretKeys([keyB.toString('base64')]);
  const err = t.throws(() => decryptSecret(onlyB, old.ciphertext, aad, '"github.token" of org 1'), { name: 'SecretDecryptError', reason: 'secret_key_unknown' }) as Error;
  t.match(err.message, new RegExp(`key ${keyId(keyA)}, which SECRETS_KEY no longer lists`));
  // A different key that happens to carry the listed id does not decrypt (and does not crash).
  const impostor = [{ id: keyId(keyA), key: keyB }];
  t.throws(() => decryptSecret(impostor, old.ciphertext, aad, 'x'), { name: 'SecretDecryptError', reason: 'secret_undecryptable' });
});
