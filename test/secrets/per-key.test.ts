// A perKey secret declaration (`{ name: 'alert_webhook_', perKey: true }`, claimed outside the module's namespace as
// the spec pins the name): one secret per key of the module's records, set, listed and deleted under its full name;
// the bare prefix and names whose key part breaks the rule are not declared; an unclaimed prefix fails boot.
import t from 'tap';
import { defineModule } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { newKey } from './support.js';

const alerts = defineModule({
  name: 'alerts', title: 'Alerts', description: 'Per-key secrets', category: 'Tests',
  secrets: [{ name: 'alert_webhook_', perKey: true, label: 'Webhook of a feed' }],
  claims: { secrets: ['alert_webhook_'] },
});

t.test('per-key secrets', async (t) => {
  const quad = await startTestApp(t, { plugins: [alerts], config: { SECRETS_KEY: [newKey().text] } });
  const store = quad.services.secrets;
  const org = await quad.createOrg({ prefix: 'acm' });
  const em = quad.orm.em.fork();
  await store.set(em, org.id, 'alert_webhook_jobs-2', 'https://example.test/hook');
  t.equal(await store.get(em, org.id, 'alert_webhook_jobs-2'), 'https://example.test/hook');
  t.match(store.declared('alert_webhook_x'), { name: 'alert_webhook_', perKey: true, module: 'alerts' });
  for (const name of ['alert_webhook_', 'alert_webhook_Bad Key', 'alert_webhook']) {
    t.throws(() => store.declared(name), /Unknown secret/, name);
  }
  const listed = (await store.list(em, org.id)).filter((s) => s.module === 'alerts');
  t.same(listed.map((s) => [s.name, s.set]), [['alert_webhook_jobs-2', true]], 'listed by full name, one per key set');
  t.equal(await store.delete(em, org.id, 'alert_webhook_jobs-2'), true);
  t.same((await store.list(em, org.id)).filter((s) => s.module === 'alerts'), []);

  const unclaimed = defineModule({ ...alerts, name: 'loose', claims: {} });
  await t.rejects(startTestApp(t, { plugins: [unclaimed] }), /outside the module's namespace "loose\."/);
});
