// Services between modules: the points module provides `points.ledger`; the store declares the interface it
// expects (plugins/store/points-ledger.ts) and receives the points implementation from the core, without importing
// the points package. This file is outside the plugins, so it may look at both.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';
import { ledger, pointsLedger as provided } from '../../plugins/points/ledger.js';
import { pointsLedger as consumed, type PointsLedger as StoreView } from '../../plugins/store/points-ledger.js';

// Compile time (tsc --noEmit): the points implementation fits the interface the store declares.
const fits: StoreView = ledger;

t.test('the store\'s view of the ledger is a part of what points provides', async (t) => {
  t.equal(consumed.id, provided.id);
  t.same(consumed.methods.filter((m) => !provided.methods.includes(m)), [], 'every method the store calls is offered');
  t.equal(typeof fits.lockMember, 'function');
});

t.test('the core hands the store the points ledger', async (t) => {
  const quad = await startTestApp(t, { plugins: ['./plugins/points', './plugins/store'], config: { POINTS_GATEWAY: false } });
  t.equal(quad.registry.services.get('points.ledger')?.module, 'points');
  t.equal(quad.services.service(consumed), quad.services.service(provided), 'one instance, whichever ref asks');
  t.equal(quad.services.service(consumed).balanceOf, ledger.balanceOf);
  const names = quad.registry.modules.map((m) => m.name);
  t.ok(names.indexOf('points') < names.indexOf('store'), 'the provider first');
  t.throws(() => quad.services.service({ id: 'nobody.nothing', methods: [] }), { message: /No loaded module provides the service "nobody\.nothing"/ });
});

t.test('the store without the points module refuses boot', async (t) => {
  await t.rejects(startTestApp(t, { plugins: ['./plugins/store'] }), { name: 'ManifestError', message: /^Plugin "store": (needs\[0\]\.key|consumes\[0\]): / });
});
