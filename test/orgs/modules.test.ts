// Module switches and the Explore listing: validation, needs, dependents, the gate, data kept, default set.
import t from 'tap';
import { forkFor } from '../../core/src/db/orm.js';
import { catalog, WalletNote } from '../fixtures/catalog-modules.js';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';

t.test('module switches', async (t) => {
  const world = await startSignInWorld(t, { plugins: catalog, config: { SECRETS_KEY: [Buffer.alloc(32, 7).toString('base64')] } });
  const { quad } = world;
  const token = (await signInOfficer(world, world.officer.id)).access_token;
  const put = (modules: unknown) => quad.api.inject({ method: 'PUT', url: '/api/organizations/acm/modules', headers: bearer(token), payload: { modules } });
  const listing = async () => (await quad.api.inject({ url: '/api/dashboard/acm/modules', headers: bearer(token) })).json();

  t.test('the listing record', async (t) => {
    const body = await listing();
    t.same(body.categories, ['Developer', 'Engagement']);
    t.same(body.modules.map((m: { name: string }) => m.name), ['wallet', 'shop', 'mirror'], 'core modules are not listed');
    t.ok(body.included.some((m: { name: string }) => m.name === 'tokens'), 'for the dashboard, core modules are listed apart as included');
    const shop = body.modules.find((m: { name: string }) => m.name === 'shop');
    t.same(shop, {
      name: 'shop', title: 'Shop', description: 'Spend points', category: 'Engagement', switchable: false, enabled: false, ready: false,
      needs: [{ key: 'wallet', label: 'Wallet module', kind: 'module', optional: false, connected: false }], submodules: [],
      pages: null,
    });
    const mirror = body.modules.find((m: { name: string }) => m.name === 'mirror');
    t.match(mirror, { enabled: false, ready: false, switchable: false });
    t.same(mirror.needs.map((n: { key: string; connected: boolean; optional: boolean }) => [n.key, n.connected, n.optional]), [['git', false, false], ['wallet', false, true]]);
  });

  t.test('new orgs get the default set', async (t) => {
    t.same(world.org.modules, {}, 'the world org was made directly');
    const res = await quad.api.inject({ url: '/api/dashboard/acm/modules', headers: bearer(token) });
    t.equal(res.json().modules.find((m: { name: string }) => m.name === 'wallet').enabled, false);
    const { defaultModules } = await import('../../core/src/orgs/module-switches.js');
    t.same(defaultModules(quad.registry), { wallet: true });
  });

  t.test('each invalid body is 400 and changes nothing', async (t) => {
    const cases: [unknown, number, string | RegExp][] = [
      [{ nothing: true }, 400, 'unknown_module'],
      [{ core: false }, 400, 'core_module'],
      [{ tokens: true }, 400, 'core_module'],
      [{ wallet: 'yes' }, 400, /body\.modules\.wallet/],
      [{}, 400, /body\.modules/],
      [[], 400, /body\.modules/],
    ];
    for (const [modules, status, reason] of cases) {
      const res = await put(modules);
      t.equal(res.statusCode, status, JSON.stringify(modules));
      if (typeof reason === 'string') t.equal(res.json().reason, reason);
      else t.match(res.json().error, reason);
    }
    const noBody = await quad.api.inject({ method: 'PUT', url: '/api/organizations/acm/modules', headers: bearer(token), payload: { modules: { wallet: true }, extra: 1 } });
    t.equal(noBody.statusCode, 400);
    t.same((await listing()).modules.filter((m: { enabled: boolean }) => m.enabled), []);
  });

  t.test('needs block a switch until they are connected', async (t) => {
    const shopFirst = await put({ shop: true });
    t.equal(shopFirst.statusCode, 409);
    t.match(shopFirst.json(), { reason: 'needs_missing', module: 'shop', missing: [{ key: 'wallet', kind: 'module' }] });
    const together = await put({ wallet: true, shop: true });
    t.equal(together.statusCode, 200, 'a need switched on in the same request counts');
    t.same(together.json().changed, { wallet: true, shop: true });
    const mirror = await put({ mirror: true });
    t.equal(mirror.statusCode, 409);
    t.match(mirror.json(), { missing: [{ key: 'git', kind: 'integration', label: 'Git host token' }] });
    await quad.services.secrets.set(quad.orm.em.fork(), world.org.id, 'git.token', 'ghp_secret');
    t.equal((await put({ mirror: true })).statusCode, 200, 'connected once the integration\'s required secret is set');
  });

  t.test('a module an enabled module needs cannot be switched off first', async (t) => {
    const res = await put({ wallet: false });
    t.equal(res.statusCode, 409);
    t.match(res.json(), { reason: 'needed_by', module: 'wallet', needed_by: ['shop'] });
    t.equal((await put({ shop: false, wallet: false })).statusCode, 200, 'both together is fine');
  });

  t.test('routes 404 while off; data kept and back when on again', async (t) => {
    t.equal((await put({ wallet: true })).statusCode, 200);
    t.equal((await quad.api.inject({ method: 'POST', url: '/api/wallet/acm/notes', payload: { label: 'kept' } })).statusCode, 201);
    t.equal((await put({ wallet: false })).statusCode, 200);
    const off = await quad.api.inject('/api/wallet/acm/notes');
    t.equal(off.statusCode, 404);
    t.equal(off.json().reason, 'module_off');
    t.equal(await forkFor(quad.orm, world.org.id).count(WalletNote, {}), 1, 'switching off keeps the data');
    t.equal((await put({ wallet: true })).statusCode, 200);
    t.same((await quad.api.inject('/api/wallet/acm/notes')).json(), { notes: ['kept'] });
  });

  t.test('a job of a module that is off is skipped', async (t) => {
    t.equal((await put({ wallet: false })).statusCode, 200);
    const run = await quad.services.startJob(quad.orm.em.fork(), 'wallet.tick', {}, { orgId: world.org.id });
    t.equal((await quad.waitForRun(run.runId)).status, 'skipped');
    const [row] = await quad.orm.em.fork().getConnection().execute(`select status, error from job_runs where id = ${run.runId}`);
    t.equal(row.status, 'skipped');
    t.match(row.error, /wallet module is off/);
    t.equal(await forkFor(quad.orm, world.org.id).count(WalletNote, { label: 'ticked' }), 0);
  });

  t.test('switches are audited', async (t) => {
    const rows = await quad.orm.em.fork().getConnection().execute("select details from audit_log where action = 'org.modules' order by id");
    t.ok(rows.length >= 4);
    t.same(rows[0].details, { changed: { wallet: true, shop: true } });
  });
});
