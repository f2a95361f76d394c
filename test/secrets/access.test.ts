// Who may touch an org's secrets, and what happens without SECRETS_KEY.
import t from 'tap';
import { captureLogs } from '@quad/core/testing';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';
import { demo, newKey, secretValue } from './support.js';

t.test('with ACCESS_ENFORCE=true an officer of one org gets 403 on another org\'s secrets', async (t) => {
  const world = await startSignInWorld(t, { plugins: [demo], config: { ACCESS_ENFORCE: true, SECRETS_KEY: [newKey().text] } });
  const { quad, officer } = world;
  const other = await quad.createOrg({ prefix: 'ieee' });
  const token = (await signInOfficer(world, officer.id)).access_token;
  const store = quad.services.secrets;
  const ieeeValue = secretValue('ieee');
  await store.set(quad.orm.em.fork(), other.id, 'forge.token', ieeeValue);

  const own = await quad.api.inject({ url: '/api/dashboard/acm/secrets', headers: bearer(token) });
  t.equal(own.statusCode, 200);
  const list = await quad.api.inject({ url: '/api/dashboard/ieee/secrets', headers: bearer(token) });
  t.equal(list.statusCode, 403);
  t.equal(list.json().reason, 'not_org_officer');
  const put = await quad.api.inject({ method: 'PUT', url: '/api/dashboard/ieee/secrets/forge.token', headers: bearer(token), payload: { value: secretValue('x') } });
  t.equal(put.statusCode, 403);
  const del = await quad.api.inject({ method: 'DELETE', url: '/api/dashboard/ieee/secrets/forge.token', headers: bearer(token) });
  t.equal(del.statusCode, 403);
  t.equal(await store.get(quad.orm.em.fork(), other.id, 'forge.token'), ieeeValue, 'ieee\'s secret is untouched');

  const anonymous = await quad.api.inject({ url: '/api/dashboard/acm/secrets' });
  t.equal(anonymous.statusCode, 401);
  const unknownOrg = await quad.api.inject({ url: '/api/dashboard/nope/secrets', headers: bearer(token) });
  t.equal(unknownOrg.statusCode, 404);
});

t.test('without SECRETS_KEY setting and reading values is 503; listing and deleting still work', async (t) => {
  const logs = captureLogs();
  const world = await startSignInWorld(t, { plugins: [demo], logger: logs.logger });
  const { quad, officer, org } = world;
  const token = (await signInOfficer(world, officer.id)).access_token;
  const store = quad.services.secrets;
  t.equal(store.configured, false);
  const v = secretValue('unconfigured');

  const put = await quad.api.inject({ method: 'PUT', url: '/api/dashboard/acm/secrets/forge.token', headers: bearer(token), payload: { value: v } });
  t.equal(put.statusCode, 503);
  t.equal(put.json().reason, 'secrets_unconfigured');
  t.match(put.json().error, /set SECRETS_KEY/);
  t.match(put.json().error, /randomBytes\(32\)/, 'the message says how to make a key');
  t.notOk(put.body.includes(v));

  const unknown = await quad.api.inject({ method: 'PUT', url: '/api/dashboard/acm/secrets/nope.x', headers: bearer(token), payload: { value: v } });
  t.equal(unknown.statusCode, 400, 'an unknown name is still 400');
  t.equal(unknown.json().reason, 'unknown_secret');

  const list = await quad.api.inject({ url: '/api/dashboard/acm/secrets', headers: bearer(token) });
  t.equal(list.statusCode, 200);
  t.equal(list.json().secrets.length, 6, 'with the core\'s github.token, mcp.url and mcp.token');
  t.ok(list.json().secrets.every((s: { set: boolean }) => !s.set));
  t.equal(list.json().integrations.find((i: { key: string }) => i.key === 'forge').connected, false);

  const em = quad.orm.em.fork();
  await t.rejects(store.get(em, org.id, 'forge.token'), { name: 'HttpError', statusCode: 503, reason: 'secrets_unconfigured' });
  await t.rejects(store.set(em, org.id, 'forge.token', v), { name: 'HttpError', statusCode: 503, reason: 'secrets_unconfigured' });
  await t.rejects(quad.services.acrossOrgs('test.rotate', (all) => store.rotate(all)), { name: 'HttpError', statusCode: 503, reason: 'secrets_unconfigured' });
  t.same([...await store.names(em, org.id)], []);
  t.equal(await store.connected(em, org.id, 'forge'), false);

  const del = await quad.api.inject({ method: 'DELETE', url: '/api/dashboard/acm/secrets/forge.token', headers: bearer(token) });
  t.equal(del.statusCode, 200);
  t.same(del.json(), { name: 'forge.token', set: false });
  t.notOk(logs.text().includes(v), 'the refused value is not logged');
});
