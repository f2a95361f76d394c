// The officer hot path's parts: one log line per response (with no credential), and the core's raw lookups (the
// org on a cache miss, the revocation check while the notification listener is down) answering what the ORM would.
import t from 'tap';
import { captureLogs } from '@quad/core/testing';
import probe from '../fixtures/probe-module.js';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';
import { PgListener } from '../../core/src/db/listener.js';
import { rawQuery } from '../../core/src/db/orm.js';
import { RevocationList } from '../../core/src/auth/revocations.js';
import { OrgCache } from '../../core/src/orgs/org-cache.js';
import { Organization } from '../../core/src/entities/organization.js';

t.test('one log line per response: method, path, route, status, time, org and request id; no credential', async (t) => {
  const logs = captureLogs();
  const world = await startSignInWorld(t, { plugins: [probe], logger: logs.logger, orgModules: { probe: true } });
  const pair = await signInOfficer(world, world.officer.id);
  const before = logs.lines.length;
  const res = await world.quad.api.inject({ url: '/api/probe/acm/officer?token=s3cret-value', headers: { ...bearer(pair.access_token), 'x-request-id': 'req-hot-1', cookie: 'quad_session=cookie-value' } });
  t.equal(res.statusCode, 200);
  const lines = logs.lines.slice(before).filter((l) => l.reqId === 'req-hot-1');
  t.equal(lines.length, 1, 'one line for the request');
  t.match(lines[0], { level: 30, msg: 'request', method: 'GET', url: '/api/probe/acm/officer?token=[redacted]', route: '/api/probe/:org/officer', status: 200, org: 'acm' });
  t.type(lines[0].ms, 'number');
  t.notOk(logs.messages().some((m) => m === 'incoming request' || m === 'request completed'), "not Fastify's two lines");
  const text = logs.text();
  for (const secret of [pair.access_token, 's3cret-value', 'cookie-value']) t.notOk(text.includes(secret), 'no credential in the logs');

  const refused = await world.quad.api.inject({ url: '/api/probe/acm/officer', headers: { ...bearer('garbage'), 'x-request-id': 'req-hot-2' } });
  t.equal(refused.statusCode, 401);
  t.match(logs.lines.filter((l) => l.reqId === 'req-hot-2' && l.msg === 'request'), [{ status: 401, route: '/api/probe/:org/officer' }], 'refusals are logged too');
});

t.test('the raw lookups answer what the ORM answers, with the listener down', async (t) => {
  const world = await startSignInWorld(t, {});
  const { quad } = world;
  const query = rawQuery(quad.orm);
  const listener = new PgListener(quad.databaseUrl, quad.log); // never started: as while the connection is down

  const orgs = new OrgCache(listener, query);
  const entity = await quad.orm.em.fork().findOneOrFail(Organization, { prefix: 'acm' });
  t.same(await orgs.find('acm'), { ...entity }, 'by prefix: the same fields as the entity');
  t.same(await orgs.find('ACM'), { ...entity }, 'prefixes are case-insensitive');
  t.same(await orgs.find(String(entity.id)), { ...entity }, 'by id');
  t.ok(Object.isFrozen(await orgs.find('acm')), 'frozen');
  t.equal(await orgs.find('nope'), null);
  t.equal(await orgs.find('99999'), null);

  const revocations = new RevocationList(listener, query);
  t.equal(await revocations.isRevoked('jti-hot'), false);
  await quad.orm.em.fork().getConnection().execute(`insert into revoked_tokens (jti, expires_at) values ('jti-hot', now() + interval '1 hour')`);
  t.equal(await revocations.isRevoked('jti-hot'), true, 'read from the table at once');
});
