// The identity provider down or slow (issue 22), through the real routes of two processes sharing one fake
// provider: one with ACCESS_ENFORCE=true, one with false. Each fault is the fake answering 502, closing every
// connection before an answer (unreachable), or holding the request past IDP_TIMEOUT_MS (slow); it hits the signing
// keys (JWKS, while a process has none yet) or the user's email (GET /users/<id>, once the keys are cached); every
// fault in one process, the 502 in the other. POST /api/points/<org>/member_login with a token answers 503
// idp_unavailable in both modes (an outage is no refusal: README, "Sign-in and access") and writes no user; a
// storefront checkout answers the same and spends nothing. The error is the fixed JSON with no address, secret or
// token, no error-log row is written, and the same request succeeds once the provider is back, with no restart.
import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { captureLogs, startMemberWorld, startTestApp, type TestApp } from '@quad/core/testing';
import { bearer } from '../support/sign-in.js';

// Short, so a slow case costs a second, but well above a loaded machine's pauses: calls that should succeed share it.
const TIMEOUT_MS = 1000;
const PLUGINS = ['./plugins/points', './plugins/store'];
const MODULES = { points: true, store: true };
const IDP_UNAVAILABLE = 'The identity provider is unavailable';

const enforceLogs = captureLogs();
const world = await startMemberWorld(t, {
  plugins: PLUGINS, orgModules: MODULES, enforce: true, logger: enforceLogs.logger,
  config: { POINTS_GATEWAY: false, IDP_TIMEOUT_MS: TIMEOUT_MS },
});
const { idp } = world;
const reportLogs = captureLogs();
const reportQuad = await startTestApp(t, {
  plugins: PLUGINS, role: 'api', logger: reportLogs.logger,
  config: {
    ...world.discordConfig, POINTS_GATEWAY: false, ACCESS_ENFORCE: false, IDP_TIMEOUT_MS: TIMEOUT_MS,
    IDP_API_URL: idp.url, IDP_SECRET_KEY: idp.secretKey, IDP_AUTHORIZED_PARTIES: [idp.defaultAzp],
  },
});
await reportQuad.createOrg({ prefix: 'acm', discordGuildId: world.guildId, officerRoleId: world.officerRoleId, modules: MODULES });

interface Mode { name: string; enforce: boolean; quad: TestApp; logs: ReturnType<typeof captureLogs> }
const MODES: Mode[] = [
  { name: 'ACCESS_ENFORCE=true', enforce: true, quad: world.quad, logs: enforceLogs },
  { name: 'ACCESS_ENFORCE=false', enforce: false, quad: reportQuad, logs: reportLogs },
];

type Fault = 'answers 502' | 'unreachable' | 'slow';
const FAULTS: Fault[] = ['answers 502', 'unreachable', 'slow'];
/** ACCESS_ENFORCE does not change the answer to an outage: every fault in one process, the 502 shows it in the other. */
const faultsOf = (mode: Mode) => (mode.enforce ? FAULTS : FAULTS.slice(0, 1));

/**
 * Runs `request` while the provider has the fault, then mends it. `held` is how many requests the fake was still
 * holding when the answer came: a slow provider was not waited for.
 */
async function during(fault: Fault, request: () => Promise<LightMyRequestResponse>) {
  if (fault === 'answers 502') idp.down(true);
  else if (fault === 'unreachable') idp.unreachable(true);
  else idp.hold(true);
  try {
    const res = await request();
    return { res, held: idp.holding };
  } finally {
    idp.down(false);
    idp.unreachable(false);
    idp.hold(false);
  }
}

/** The JSON error of the outage, with nothing of the address, the secret key, the token or a stack. */
function outage(t: Test, res: LightMyRequestResponse, fault: Fault, held: number, token: string) {
  t.equal(res.statusCode, 503, res.body);
  t.match(res.headers['content-type'], /^application\/json/);
  t.same(res.json(), { error: IDP_UNAVAILABLE, reason: 'idp_unavailable' });
  const leaks = { address: '127.0.0.1', port: `:${new URL(idp.url).port}`, 'secret key': idp.secretKey, token: token.split('.')[1]!, stack: '    at ' };
  for (const [what, text] of Object.entries(leaks)) t.notOk(res.body.includes(text), `the body holds no ${what}`);
  if (fault === 'slow') t.ok(held >= 1, 'answered while the provider still held the request');
}

const sql = async (quad: TestApp, text: string, params: unknown[] = []) =>
  (await quad.orm.em.fork().getConnection().execute(text, params as never[])) as Record<string, any>[];

/** What a failed request must leave as it was: people, the store's orders and points, stock, events, errors. */
async function rows(quad: TestApp) {
  const [row] = await sql(quad, `select
      (select count(*) from users)::int as users, (select count(*) from orders)::int as orders,
      (select count(*) from order_items)::int as items, (select count(*) from points_entries)::int as entries,
      (select coalesce(sum(stock), 0)::int from products) as stock, (select count(*) from notifications)::int as events,
      (select count(*) from error_log)::int as errors`);
  return row;
}

const hasUser = async (quad: TestApp, email: string) => (await sql(quad, 'select 1 from users where email = ?', [email])).length === 1;

let shoppers = 0;
/** A provider user no process has looked up yet, and a session token of theirs. */
async function newShopper(email = `shopper${++shoppers}@example.org`) {
  const user = idp.addUser({ emails: [email] });
  return { email, token: await idp.issueToken(user.id, { expiresIn: 3600 }) };
}

const memberLogin = (quad: TestApp, email: string, token: string) => () =>
  quad.api.inject({ method: 'POST', url: '/api/points/acm/member_login', headers: bearer(token), payload: { email } });

for (const mode of MODES) {
  const { quad } = mode;
  const unverified = `access decision=${mode.enforce ? 'deny' : 'would_deny'} reason=member_login_unverified route=/api/points/:org/member_login org=acm credential=idp_token`;
  const decisions = () => mode.logs.messages().filter((m) => m === unverified).length;

  /** member_login during the fault: 503, no user, no access decision; then (with `recover`) the same request verifies. */
  async function failsThenRecovers(t: Test, fault: Fault, asks: RegExp, recover: boolean) {
    const { email, token } = await newShopper();
    const before = await rows(quad);
    const logged = decisions();
    const asked = idp.requests.length;
    const { res, held } = await during(fault, memberLogin(quad, email, token));
    outage(t, res, fault, held, token);
    t.same(await rows(quad), before, 'no user and no error-log row');
    t.notOk(await hasUser(quad, email));
    t.equal(decisions(), logged, 'an outage is not logged as member_login_unverified');
    // An unreachable provider sees no request at all.
    if (fault !== 'unreachable') {
      const paths = idp.requests.slice(asked).map((r) => r.path);
      t.equal(paths.length, 1, 'the provider was asked once');
      t.match(paths[0], asks);
    }
    if (!recover) return;

    const ok = await memberLogin(quad, email, token)();
    t.equal(ok.statusCode, 200, ok.body);
    t.match(ok.json(), { email, verified: true });
    t.ok(await hasUser(quad, email), 'the user is kept once the sign-in is verified');
  }

  t.test(`${mode.name}: member_login while the signing keys cannot be fetched`, async (t) => {
    // This process has no keys yet (these subtests run first, in order), so each attempt asks for them; a failed
    // fetch starts no refetch cooldown, so the first request after the outage fetches them.
    for (const fault of faultsOf(mode)) t.test(fault, (t) => failsThenRecovers(t, fault, /^\/jwks$/, false));
    t.test('the provider back: a sign-in verifies', async (t) => {
      const { email, token } = await newShopper();
      const ok = await memberLogin(quad, email, token)();
      t.equal(ok.statusCode, 200, ok.body);
      t.match(ok.json(), { email, verified: true });
      t.ok(await hasUser(quad, email));
    });
  });

  t.test(`${mode.name}: member_login while the user's email cannot be read (keys cached)`, async (t) => {
    for (const fault of faultsOf(mode)) {
      t.test(fault, (t) => failsThenRecovers(t, fault, /^\/users\/user_/, true));
    }
  });

  t.test(`${mode.name}: what needs no call to the provider goes on through an outage`, async (t) => {
    const { email, token } = await newShopper();
    t.equal((await memberLogin(quad, email, token)()).statusCode, 200, 'signed in while the provider is up');
    idp.down(true);
    t.teardown(() => idp.down(false));
    const asked = idp.requests.length;
    const again = await memberLogin(quad, email, token)();
    t.equal(again.statusCode, 200, 'keys and email are cached (60 s): the member signs in again');
    t.match(again.json(), { email, verified: true });
    const none = await quad.api.inject({ method: 'POST', url: '/api/points/acm/member_login', payload: { email: 'nobody@example.org' } });
    t.equal(none.statusCode, mode.enforce ? 403 : 200, 'no token: the usual member_login_unverified decision');
    t.equal(idp.requests.length, asked, 'the provider was not asked');
  });
}

t.test('storefront checkout (dual: an identity-provider token) spends nothing while the provider cannot answer', async (t) => {
  const { quad } = world;
  const created = await quad.api.inject({ method: 'POST', url: '/api/storefront/acm/products', headers: bearer(world.officerToken), payload: { name: 'Mug', price: 10, stock: 5 } });
  t.equal(created.statusCode, 201, created.body);
  const product = created.json().id as number;
  const email = 'buyer@example.org';
  const userId = await world.userId({ email });
  await sql(quad, `insert into points_entries (organization_id, user_id, amount, source, reason, awarded_by) values (?, ?, 100, 'award', 'test grant', 'system')`, [world.org.id, userId]);
  const checkout = (token: string) => () => quad.api.inject({
    method: 'POST', url: '/api/storefront/acm/checkout', headers: bearer(token),
    payload: { items: [{ product_id: product, quantity: 1, price: 10 }], total: 10 },
  });

  for (const fault of FAULTS) {
    t.test(fault, async (t) => {
      // A new provider user with the buyer's email: their email is not cached, so the provider must be asked.
      const { token } = await newShopper(email);
      const before = await rows(quad);
      const { res, held } = await during(fault, checkout(token));
      outage(t, res, fault, held, token);
      t.same(await rows(quad), before, 'no order, no points row, the stock as it was');

      const ok = await checkout(token)();
      t.equal(ok.statusCode, 201, ok.body);
      t.match(ok.json(), { points_deducted: 10, order: { channel: 'storefront', user_id: userId } });
      const after = await rows(quad);
      t.same([after.orders, after.entries, after.stock], [before.orders + 1, before.entries + 1, before.stock - 1], 'the same checkout, once');
    });
  }
});
