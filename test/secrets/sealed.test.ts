// The secret box for modules' own values (secrets.seal / open): a value opens only under the context it was sealed
// with, with any listed key (the newest seals), and not at all without SECRETS_KEY (503) or once its key is gone.
import t from 'tap';
import { SecretDecryptError } from '@quad/core';
import { Registry } from '../../core/src/modules/registry.js';
import { SecretStore } from '../../core/src/secrets/store.js';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { newKey } from './support.js';

const registry = new Registry([...CORE_MODULES]);
const keyA = newKey();
const keyB = newKey();

t.test('seal and open', async (t) => {
  const store = new SecretStore(registry, [keyA.text]);
  const sealed = store.seal('agents.memory:1:42', 'a sensitive memory');
  t.notMatch(sealed, /sensitive/, 'the plaintext is not in the sealed value');
  t.not(store.seal('agents.memory:1:42', 'a sensitive memory'), sealed, 'a fresh IV each time');
  t.equal(store.open('agents.memory:1:42', sealed), 'a sensitive memory');
  t.throws(() => store.open('agents.memory:1:43', sealed), SecretDecryptError, 'another context does not open it');
  t.throws(() => store.open('agents.memory:2:42', sealed), { name: 'SecretDecryptError', reason: 'secret_undecryptable' });

  const rotated = new SecretStore(registry, [keyB.text, keyA.text]);
  t.equal(rotated.open('agents.memory:1:42', sealed), 'a sensitive memory', 'an older listed key still opens it');
  t.not(rotated.seal('c', 'x').split('.')[1], sealed.split('.')[1], 'the newest key seals');
  t.throws(() => new SecretStore(registry, [keyB.text]).open('agents.memory:1:42', sealed), { name: 'SecretDecryptError', reason: 'secret_key_unknown' }, 'its key is gone');

  const none = new SecretStore(registry, []);
  t.throws(() => none.seal('c', 'x'), { name: 'HttpError', statusCode: 503, reason: 'secrets_unconfigured' });
  t.throws(() => none.open('c', sealed), { name: 'HttpError', statusCode: 503 });
});
