// Machine tokens: created by officers or by tokens:manage tokens (never wider than their creator), shown once,
// stored as hash and prefix, listed without secrets, revoked, expiring, audited; CLI tokens; whoami.
import t from 'tap';
import { defineModule } from '@quad/core';
import { captureLogs } from '@quad/core/testing';
import { issueCliToken } from '../../core/src/auth/machine-tokens.js';
import { forkFor } from '../../core/src/db/orm.js';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';

// A module with an integration-backed scope, so `limits` has an integration to narrow.
const forge = defineModule({
  name: 'gh', title: 'Forge tools', description: 'Scopes backed by Forge', category: 'Tests',
  integrations: [{ key: 'forge', title: 'Forge', description: 'Code hosting', secrets: [{ name: 'forge.token', label: 'Token' }] }],
  scopes: [
    { name: 'gh:read', description: 'Read repos', integration: 'forge' },
    { name: 'gh:write', description: 'Write repos', integration: 'forge' },
  ],
});

t.test('machine tokens', async (t) => {
  const logs = captureLogs();
  const world = await startSignInWorld(t, { plugins: [forge], logger: logs.logger });
  const { quad, officer } = world;
  const other = await quad.createOrg({ prefix: 'ieee' });
  const officerToken = (await signInOfficer(world, officer.id)).access_token;
  const create = (payload: object, token = officerToken, org = 'acm') =>
    quad.api.inject({ method: 'POST', url: `/api/organizations/${org}/tokens`, headers: bearer(token), payload });
  const sql = (q: string) => quad.orm.em.fork().getConnection().execute(q);

  t.test('an officer creates a token, shown once and stored as hash and prefix', async (t) => {
    const res = await create({ name: 'deploy bot', kind: 'app', scopes: ['tokens:manage', 'gh:read'], expires_days: 30, limits: { forge: { repos: ['acm/*'], tools: ['gh.list_*'] } } });
    t.equal(res.statusCode, 201);
    const { token, record } = res.json();
    t.match(token, /^plat_[\w-]{43}$/);
    t.equal(record.prefix, token.slice(0, 12));
    t.same(record.scopes, ['tokens:manage', 'gh:read']);
    t.same(record.limits, { forge: { repos: ['acm/*'], tools: ['gh.list_*'] } });
    t.ok(Math.abs(new Date(record.expires_at).getTime() - Date.now() - 30 * 86_400_000) < 60_000);
    t.equal(record.created_by, `officer:${officer.id}`);
    t.equal(record.revoked, false);
    const [row] = await sql(`select * from machine_tokens where id = ${record.id}`);
    t.not(row.token_hash, token);
    t.equal(row.token_hash.length, 64);
    t.equal(row.token_prefix, token.slice(0, 12));

    const list = await quad.api.inject({ url: '/api/organizations/acm/tokens', headers: bearer(officerToken) });
    t.equal(list.statusCode, 200);
    t.notOk(list.body.includes(token), 'the token never appears in a list');
    t.notOk(list.body.includes(row.token_hash), 'nor does its hash');
    t.equal(list.json().tokens[0].id, record.id);
    t.ok(list.json().scopes.find((s: { name: string }) => s.name === 'gh:read' && (s as { integration?: string }).integration === 'forge'));

    const [audit] = await sql("select * from audit_log where action = 'tokens.create'");
    t.equal(audit.actor, `officer:${officer.id}`);
    t.equal(audit.organization_id, world.org.id);
    t.equal(audit.details.token_id, record.id);
    t.notOk(JSON.stringify(audit.details).includes(token), 'the audit row does not hold the token');
    t.notOk(logs.text().includes(token), 'no log line holds the token');
  });

  t.test('each invalid body is refused with 400 and nothing is created', async (t) => {
    const before = (await sql('select count(*)::int as n from machine_tokens'))[0].n;
    const cases: [object, RegExp][] = [
      [{ kind: 'app', scopes: ['gh:read'] }, /body\.name: is required/],
      [{ name: 'x', kind: 'robot', scopes: ['gh:read'] }, /body\.kind/],
      [{ name: 'x', kind: 'app', scopes: [] }, /body\.scopes/],
      [{ name: 'x', kind: 'app', scopes: ['gh:fly'] }, /Unknown scope "gh:fly"/],
      [{ name: 'x', kind: 'app', scopes: ['gh:read', 'gh:read'] }, /twice/],
      [{ name: 'x', kind: 'app', scopes: ['gh:read'], expires_days: 0 }, /body\.expires_days/],
      [{ name: 'x', kind: 'app', scopes: ['gh:read'], limits: { gitlab: { repos: ['a/*'] } } }, /unknown integration "gitlab"/],
      [{ name: 'x', kind: 'app', scopes: ['gh:read'], limits: { forge: { repos: ['a b'] } } }, /is not a pattern/],
      [{ name: 'x', kind: 'app', scopes: ['gh:read'], limits: { forge: { branches: ['main'] } } }, /body\.limits/],
      [{ name: '', kind: 'app', scopes: ['gh:read'] }, /body\.name/],
    ];
    for (const [payload, message] of cases) {
      const res = await create(payload);
      t.equal(res.statusCode, 400, JSON.stringify(payload));
      t.match(res.json().error, message);
    }
    t.equal((await sql('select count(*)::int as n from machine_tokens'))[0].n, before);
  });

  t.test('a token made by a tokens:manage token gets at most its creator\'s scopes and limits', async (t) => {
    const manager = (await create({ name: 'manager', kind: 'agent', scopes: ['tokens:manage', 'gh:read'], limits: { forge: { repos: ['acm/*'] } } })).json().token;
    const child = await create({ name: 'child', kind: 'agent', scopes: ['gh:read'] }, manager);
    t.equal(child.statusCode, 201);
    t.same(child.json().record.limits, { forge: { repos: ['acm/*'] } }, 'inherits the creator\'s limits');
    t.equal(child.json().record.created_by.startsWith('machine:'), true);
    const narrower = await create({ name: 'narrow', kind: 'agent', scopes: ['gh:read'], limits: { forge: { repos: ['acm/site'] } } }, manager);
    t.equal(narrower.statusCode, 201);
    const wider = await create({ name: 'wide', kind: 'agent', scopes: ['gh:read'], limits: { forge: { repos: ['*'] } } }, manager);
    t.equal(wider.statusCode, 403);
    t.equal(wider.json().reason, 'limit_not_held');
    const escalate = await create({ name: 'escalate', kind: 'agent', scopes: ['gh:write'] }, manager);
    t.equal(escalate.statusCode, 403);
    t.equal(escalate.json().reason, 'scope_not_held');
    const noManage = child.json().token;
    const refused = await create({ name: 'x', kind: 'agent', scopes: ['gh:read'] }, noManage);
    t.equal(refused.statusCode, 403);
    t.equal(refused.json().reason, 'missing_scope');
    const otherOrg = await create({ name: 'x', kind: 'agent', scopes: ['gh:read'] }, manager, 'ieee');
    t.equal(otherOrg.statusCode, 403);
    t.equal(otherOrg.json().reason, 'wrong_org');
  });

  t.test('whoami, last_used_at, revoke and expiry', async (t) => {
    const { token, record } = (await create({ name: 'agent', kind: 'agent', scopes: ['gh:read'] })).json();
    t.equal(record.last_used_at, null);
    const who = await quad.api.inject({ url: '/api/auth/machine/whoami', headers: bearer(token) });
    t.equal(who.statusCode, 200);
    t.same(who.json(), { org: { id: world.org.id, prefix: 'acm', name: world.org.name }, id: record.id, name: 'agent', kind: 'agent', scopes: ['gh:read'], expires_at: null });
    const [row] = await sql(`select last_used_at from machine_tokens where id = ${record.id}`);
    t.ok(row.last_used_at, 'last_used_at is set on use');
    t.equal((await quad.api.inject({ url: '/api/auth/machine/whoami', headers: bearer(officerToken) })).statusCode, 401);

    const del = await quad.api.inject({ method: 'DELETE', url: `/api/organizations/acm/tokens/${record.id}`, headers: bearer(officerToken) });
    t.same(del.json(), { revoked: true });
    t.equal((await quad.api.inject({ url: '/api/auth/machine/whoami', headers: bearer(token) })).statusCode, 401);
    const [audit] = await sql(`select * from audit_log where action = 'tokens.revoke' and (details->>'token_id')::int = ${record.id}`);
    t.ok(audit, 'revocation is audited');
    const missing = await quad.api.inject({ method: 'DELETE', url: '/api/organizations/acm/tokens/999999', headers: bearer(officerToken) });
    t.equal(missing.statusCode, 404);
  });

  t.test('one org never sees or revokes another org\'s tokens', async (t) => {
    const { record } = (await create({ name: 'acm only', kind: 'app', scopes: ['gh:read'] })).json();
    const ieeeList = await forkFor(quad.orm, other.id).find('MachineToken', {});
    t.equal(ieeeList.length, 0);
    // An officer of acm is not an officer of ieee; a superadmin-free enforce check is in policies.test.ts.
    const viaIeee = await quad.api.inject({ method: 'DELETE', url: `/api/organizations/ieee/tokens/${record.id}`, headers: bearer(officerToken) });
    t.equal(viaIeee.statusCode, 404, 'the token id is unknown in the other org');
    const [row] = await sql(`select revoked_at from machine_tokens where id = ${record.id}`);
    t.equal(row.revoked_at, null);
  });

  t.test('a new CLI token revokes the member\'s previous one', async (t) => {
    const em = quad.orm.em.fork();
    const first = await issueCliToken(em, world.org.id, { chatUserId: world.member.id, name: 'bob laptop' });
    t.equal(first.record.kind, 'cli');
    t.same(first.record.scopes, ['podhost:connect']);
    t.ok(Math.abs(first.record.expiresAt!.getTime() - Date.now() - 90 * 86_400_000) < 60_000, '90 days');
    const second = await issueCliToken(em, world.org.id, { chatUserId: world.member.id, name: 'bob desktop' });
    const rows = await sql(`select id, revoked_at from machine_tokens where kind = 'cli' order by id`);
    t.same(rows.map((r) => [r.id, r.revoked_at !== null]), [[first.record.id, true], [second.record.id, false]]);
    t.equal((await quad.api.inject({ url: '/api/auth/machine/whoami', headers: bearer(first.token) })).statusCode, 401);
    t.equal((await quad.api.inject({ url: '/api/auth/machine/whoami', headers: bearer(second.token) })).statusCode, 200);
  });
});
