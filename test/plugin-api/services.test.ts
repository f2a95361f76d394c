// Services between modules: the points module provides `points.ledger`; the store declares the interface it
// expects (plugins/store/points-ledger.ts) and receives the points implementation from the core, without importing
// the points package. This file is outside the plugins, so it may look at both.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';
import { ledger, pointsLedger as provided } from '../../plugins/points/ledger.js';
import { pointsLedger as consumed, type PointsLedger as StoreView } from '../../plugins/store/points-ledger.js';
import { pointsLedger as leetcodeRef, type PointsLedger as LeetcodeView } from '../../plugins/leetcode/points.js';
import { podProviderRef as providedPods, type PodProviderService } from '../../plugins/pods/provider/service.js';
import { podProviderRef as hostingRef, type PodProviderService as HostingView } from '../../plugins/hosting/provider.js';

// Compile time (tsc --noEmit): each implementation fits the interface its consumers declare (the store's and
// LeetCode's view of the ledger, the hosting module's view of the pods module's provider).
const fits: StoreView = ledger;
const leetcodeFits: LeetcodeView = ledger;
const hostingFits = (service: PodProviderService): HostingView => service;
void hostingFits;

t.test('every consumer\'s view of a service is a part of what its provider offers', async (t) => {
  for (const [view, offered] of [[leetcodeRef, provided], [hostingRef, providedPods]] as const) {
    t.equal(view.id, offered.id);
    t.same(view.methods.filter((m) => !(offered.methods as string[]).includes(m)), [], `${view.id}: every method called is offered`);
  }
  t.equal(typeof leetcodeFits.addEntry, 'function');
});

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
