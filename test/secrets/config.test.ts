// A bad SECRETS_KEY stops the boot with a message naming it (and never printing the key).
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { startTestApp } from '@quad/core/testing';
import { newKey } from './support.js';

t.test('a key that does not decode to 32 bytes refuses to boot', async (t) => {
  const wrong = randomBytes(48).toString('base64'); // fits the setting's pattern, but 48 bytes
  const err = await startTestApp(t, { config: { SECRETS_KEY: [newKey().text, wrong] } }).then(() => null, (e: Error) => e);
  t.match(err, { name: 'ConfigError' });
  t.match(err?.message, /SECRETS_KEY\[1\]: must decode to exactly 32 bytes, got 48/);
  t.notOk(err?.message.includes(wrong), 'the key itself is not printed');
});

t.test('a key that is not base64 at all is refused by the settings schema', async (t) => {
  await t.rejects(startTestApp(t, { config: { SECRETS_KEY: ['short'] } }), { name: 'ConfigError', message: /SECRETS_KEY/ });
});

t.test('base64url keys and several keys boot', async (t) => {
  const quad = await startTestApp(t, { role: 'api', config: { SECRETS_KEY: [randomBytes(32).toString('base64url'), newKey().text] } });
  t.equal(quad.services.secrets.configured, true);
  t.match(quad.services.secrets.currentKeyId, /^[0-9a-f]{8}$/);
});
