// Guardrail: a module whose SQL forgets the org (test/fixtures/breach-module.ts) still sees and changes only the rows
// of the org its request is bound to, on every kind of statement: row-level security, not the module, keeps orgs
// apart (README "Org isolation"). A write of another org's row is refused with 403 other_org_row.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';
import breach from '../fixtures/breach-module.js';

t.test('statements without an org condition stay in the bound org', async (t) => {
  const quad = await startTestApp(t, { plugins: [breach], config: { DATABASE_SERVICE_ROLE: 'quad_service' } });
  const [aa, bb] = [await quad.createOrg({ prefix: 'aa', modules: { breach: true } }), await quad.createOrg({ prefix: 'bb', modules: { breach: true } })];
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => {
    const res = await quad.api.inject({ method, url: `/api/breach/${url}`, ...(payload && { payload }) });
    return { status: res.statusCode, body: res.json() };
  };
  /** Every row as the owner sees it: the truth, whatever a route answered. */
  const allRows = async () => (await quad.orm.em.fork().execute<{ id: number; organization_id: number; label: string }[]>(
    'select id, organization_id, label from breach_rows order by id')).map((r) => `${r.organization_id === aa.id ? 'aa' : 'bb'}:${r.label}`);

  for (const [org, label] of [['aa', 'a1'], ['aa', 'a2'], ['bb', 'b1']]) t.equal((await call('POST', `${org}/rows`, { label })).status, 201);
  const theirs = (await quad.orm.em.fork().execute<{ id: number }[]>(`select id from breach_rows where organization_id = ${bb.id}`))[0]!.id;

  t.same((await call('GET', 'aa/rows')).body.rows, [{ organization_id: aa.id, label: 'a1' }, { organization_id: aa.id, label: 'a2' }],
    'select: the bound org\'s rows only');

  const smuggled = await call('POST', 'aa/rows', { label: 'planted', org_id: bb.id });
  t.same([smuggled.status, smuggled.body.reason], [403, 'other_org_row'], 'insert with another org\'s id: refused');

  t.same((await call('PUT', 'aa/rows', { label: 'changed' })).body, { changed: 2 }, 'update of every row: the bound org\'s two');

  const moved = await call('PUT', `aa/rows/${theirs}/org`, { org_id: aa.id });
  t.same(moved.body, { changed: 0 }, 'update of another org\'s row by id: no row matched');
  const giveAway = await quad.orm.em.fork().execute<{ id: number }[]>(`select id from breach_rows where organization_id = ${aa.id} order by id limit 1`);
  const given = await call('PUT', `aa/rows/${giveAway[0]!.id}/org`, { org_id: bb.id });
  t.same([given.status, given.body.reason], [403, 'other_org_row'], 'moving a row to another org: refused');

  const upsert = await call('POST', 'aa/upsert', { id: theirs, label: 'taken over' });
  t.same([upsert.status, upsert.body.reason], [403, 'other_org_row'], 'upsert onto another org\'s row: refused');

  t.same(await allRows(), ['aa:changed', 'aa:changed', 'bb:b1'], 'the other org\'s row is as it was; nothing was planted');
  t.same((await call('DELETE', 'aa/rows')).body, { deleted: 2 }, 'delete of every row: the bound org\'s two');
  t.same(await allRows(), ['bb:b1']);
  t.same((await call('GET', 'bb/rows')).body.rows, [{ organization_id: bb.id, label: 'b1' }], 'the other org still sees its own');
});
