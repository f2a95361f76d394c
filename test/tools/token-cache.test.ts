// The per-process cache of verified machine tokens: a change to a token is refused in every process (through
// the trigger's NOTIFY), at once in the process that revoked it, and last_used_at is not written per call.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';
import { issueToken, revokeToken } from '../../core/src/auth/token-admin.js';
import { forkFor } from '../../core/src/db/orm.js';

t.test('machine token cache', async (t) => {
  const quad = await startTestApp(t);
  const other = await startTestApp(t, { databaseUrl: quad.databaseUrl });
  const org = await quad.createOrg({ prefix: 'acm' });
  const sql = (q: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, params);
  const issue = async () => (await issueToken(quad.orm.em.fork(), quad.services, org.id, { name: 'agent', kind: 'agent', scopes: ['org:read'] }, { kind: 'officer', actor: 'test' }));
  const whoami = (app: typeof quad, token: string) => app.api.inject({ url: '/api/auth/machine/whoami', headers: { authorization: `Bearer ${token}` } });
  /** Ask until the answer is `status` (a NOTIFY arrives a moment after the commit), at most 2 s. */
  async function eventually(app: typeof quad, token: string, status: number) {
    let seen = 0;
    for (let i = 0; i < 80 && seen !== status; i++) {
      seen = (await whoami(app, token)).statusCode;
      if (seen !== status) await new Promise((r) => setTimeout(r, 25));
    }
    return seen;
  }

  t.test('a revocation is refused at once here and in every other process', async (t) => {
    const { token, record } = await issue();
    t.equal((await whoami(quad, token)).statusCode, 200);
    t.equal((await whoami(other, token)).statusCode, 200, 'cached in the other process');
    await revokeToken(forkFor(quad.orm, org.id), quad.services, org.id, record.id, 'test');
    const here = await whoami(quad, token);
    t.equal(here.statusCode, 401, 'at once in the revoking process');
    t.equal(here.json().reason, 'token_revoked');
    t.equal(await eventually(other, token, 401), 401, 'the other process hears it');
  });

  t.test('a change made in SQL is heard by every process', async (t) => {
    const { token, record } = await issue();
    t.equal((await whoami(quad, token)).statusCode, 200);
    t.equal((await whoami(other, token)).statusCode, 200);
    await sql("update machine_tokens set expires_at = now() - interval '1 second' where id = ?", [record.id]);
    t.equal(await eventually(quad, token, 401), 401);
    t.equal(await eventually(other, token, 401), 401);
    t.equal((await whoami(other, token)).json().reason, 'token_expired');
  });

  t.test('a deleted org\'s tokens are refused', async (t) => {
    const gone = await quad.createOrg({ prefix: 'gone' });
    const { token } = await issueToken(quad.orm.em.fork(), quad.services, gone.id, { name: 'a', kind: 'agent', scopes: ['org:read'] }, { kind: 'officer', actor: 'test' });
    t.equal((await whoami(other, token)).statusCode, 200);
    await sql('delete from organizations where id = ?', [gone.id]);
    t.equal(await eventually(other, token, 401), 401);
  });

  t.test('last_used_at is written on first use, not on every call', async (t) => {
    const { token, record } = await issue();
    t.equal((await whoami(quad, token)).statusCode, 200);
    const [first] = await sql('select last_used_at from machine_tokens where id = ?', [record.id]);
    t.ok(first.last_used_at, 'set on first use');
    for (let i = 0; i < 3; i++) t.equal((await whoami(quad, token)).statusCode, 200);
    t.equal((await whoami(other, token)).statusCode, 200);
    const [later] = await sql('select last_used_at from machine_tokens where id = ?', [record.id]);
    t.same(later.last_used_at, first.last_used_at, 'not rewritten within the minute');
  });
});
