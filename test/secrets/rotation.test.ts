// Key rotation: put a new key first in SECRETS_KEY, old values stay readable, the secrets.rotate job (or
// store.rotate) re-encrypts them with the new key, then the old key can go. A value whose key is gone fails clearly.
import t from 'tap';
import { captureLogs, startTestApp } from '@quad/core/testing';
import { keyId } from '../../core/src/secrets/crypto.js';
import { SecretStore } from '../../core/src/secrets/store.js';
import { demo, newKey, secretValue } from './support.js';

t.test('rotation', async (t) => {
  const keyA = newKey();
  const keyB = newKey();
  // The first process only serves the API, so only the second one's worker runs the rotation job.
  const before = await startTestApp(t, { plugins: [demo], role: 'api', config: { SECRETS_KEY: [keyA.text] } });
  const acm = await before.createOrg({ prefix: 'acm' });
  const ieee = await before.createOrg({ prefix: 'ieee' });
  const em = () => before.orm.em.fork();
  const sql = (q: string, params: unknown[] = []) => before.orm.em.fork().getConnection().execute(q, params);
  const token = secretValue('token');
  const hook = secretValue('hook');
  const ieeeToken = secretValue('ieee');
  await before.services.secrets.set(em(), acm.id, 'forge.token', token, 'officer:1');
  await before.services.secrets.set(em(), acm.id, 'demo.webhook', hook);
  await before.services.secrets.set(em(), ieee.id, 'forge.token', ieeeToken);
  const rowsBefore = await sql('select * from org_secrets order by organization_id, name');
  t.ok(rowsBefore.every((r) => r.key_id === keyId(keyA.bytes)));

  t.test('a new key first: old values still decrypt, new values use the new key', async (t) => {
    const both = new SecretStore(before.registry, [keyB.text, keyA.text]);
    t.equal(await both.get(em(), acm.id, 'forge.token'), token);
    await both.set(em(), acm.id, 'forge.webhook_secret', 'fresh');
    const [row] = await sql("select key_id from org_secrets where name = 'forge.webhook_secret'");
    t.equal(row.key_id, keyId(keyB.bytes));
    const err = await before.services.secrets.get(em(), acm.id, 'forge.webhook_secret').then(() => null, (e: Error) => e);
    t.match(err, { name: 'SecretDecryptError', reason: 'secret_key_unknown' }, 'a process still on the old list cannot read it');
    t.match(err?.message, new RegExp(`"forge.webhook_secret" of org ${acm.id} was encrypted with key ${keyId(keyB.bytes)}, which SECRETS_KEY no longer lists`));
  });

  t.test('the secrets.rotate job re-encrypts every org\'s secrets with the first key', async (t) => {
    const logs = captureLogs();
    const after = await startTestApp(t, { plugins: [demo], databaseUrl: before.databaseUrl, logger: logs.logger, config: { SECRETS_KEY: [keyB.text, keyA.text] } });
    const { runId } = await after.services.startJob(after.orm.em.fork(), 'secrets.rotate', {});
    const run = await after.waitForRun(runId);
    t.equal(run.status, 'succeeded', run.error ?? '');
    t.ok(logs.messages().some((m) => /secrets\.rotate: re-encrypted 3 secret\(s\) with key [0-9a-f]{8}; 1 already on it/.test(m)), logs.messages().join('\n'));

    const rows = await sql('select * from org_secrets order by organization_id, name');
    t.equal(rows.length, 4);
    t.ok(rows.every((r) => r.key_id === keyId(keyB.bytes)), 'every row is on the new key');
    for (const old of rowsBefore) {
      const now = rows.find((r) => r.organization_id === old.organization_id && r.name === old.name)!;
      t.not(now.ciphertext, old.ciphertext, 'the value was re-encrypted');
      t.equal(new Date(now.updated_at).getTime(), new Date(old.updated_at).getTime(), 'updated_at is kept');
      t.equal(now.updated_by, old.updated_by, 'updated_by is kept');
    }
    const onlyB = new SecretStore(before.registry, [keyB.text]);
    t.equal(await onlyB.get(em(), acm.id, 'forge.token'), token, 'the old key can go');
    t.equal(await onlyB.get(em(), acm.id, 'demo.webhook'), hook);
    t.equal(await onlyB.get(em(), ieee.id, 'forge.token'), ieeeToken);
    t.same(await before.services.acrossOrgs('test.rotate', (all) => onlyB.rotate(all)), { rotated: 0, current: 4 }, 'a second rotation has nothing to do');
    for (const v of [token, hook, ieeeToken]) t.notOk(logs.text().includes(v), 'no value in the logs');
  });

  t.test('a value whose key is no longer listed fails clearly, also in rotate', async (t) => {
    const keyC = newKey();
    const onlyC = new SecretStore(before.registry, [keyC.text]);
    await t.rejects(onlyC.get(em(), acm.id, 'forge.token'), { name: 'SecretDecryptError', reason: 'secret_key_unknown', message: /SECRETS_KEY no longer lists/ });
    await t.rejects(before.services.acrossOrgs('test.rotate', (all) => onlyC.rotate(all)), { name: 'SecretDecryptError', reason: 'secret_key_unknown' });
    t.ok((await sql('select key_id from org_secrets')).every((r) => r.key_id === keyId(keyB.bytes)), 'a failed rotation changes nothing it could not read');
  });
});
