// A tool call's transaction, as a tool sees it through `em`: what it persists (flushed or not, in nested
// transactions too) is kept with the call's audit row and count, or not at all; it reads its own writes; and
// once the call is over its `em` can no longer write.
import t from 'tap';
import { defineModule, defineTool, Type } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { issueToken } from '../../core/src/auth/token-admin.js';
import { SampleItem } from '../fixtures/sample-module.js';

let late: Promise<unknown> = Promise.resolve();
const ledger = defineModule({
  name: 'ledger', title: 'Ledger', description: 'Tools that write through em', category: 'Tests',
  migrations: new URL('../fixtures/sample-migrations/', import.meta.url),
  tables: { sample_items: 'org' },
  entities: [SampleItem],
  scopes: [{ name: 'ledger:write', description: 'Write' }],
  tools: [
    defineTool({
      name: 'ledger.persist', description: 'Persists a row without flushing', scope: 'ledger:write', input: Type.Object({ label: Type.String() }),
      async handler({ em, org }, { label }) {
        em.create(SampleItem, { organization: org.id, label });
        return { persisted: label };
      },
    }),
    defineTool({
      name: 'ledger.nested', description: 'Writes in a nested transaction, then reads it back', scope: 'ledger:write', input: Type.Object({ label: Type.String(), fail: Type.Boolean() }),
      async handler({ em, org }, { label, fail }) {
        await em.transactional(async (tem) => { tem.create(SampleItem, { organization: org.id, label }); });
        await em.execute('insert into sample_items (organization_id, label) values (?, ?)', [org.id, `${label}-raw`]);
        const seen = await em.count(SampleItem, { label: { $like: `${label}%` } });
        if (fail) throw new Error('failed after writing');
        return { seen };
      },
    }),
    defineTool({
      name: 'ledger.savepoints', description: 'A nested transaction that fails inside one that succeeds', scope: 'ledger:write', input: Type.Object({ label: Type.String() }),
      async handler({ em, org }, { label }) {
        await em.transactional(async (outer) => {
          outer.create(SampleItem, { organization: org.id, label: `${label}-outer` });
          await outer.flush();
          await outer.transactional(async (inner) => {
            inner.create(SampleItem, { organization: org.id, label: `${label}-inner` });
            await inner.flush();
            throw new Error('the inner part fails');
          }).catch(() => {});
        });
        return { seen: await em.count(SampleItem, { label: { $like: `${label}%` } }) };
      },
    }),
    defineTool({
      name: 'ledger.late', description: 'Writes after it has answered', scope: 'ledger:write', input: Type.Object({}),
      async handler({ em, org }) {
        late = new Promise((r) => setTimeout(r, 50)).then(() => em.execute('insert into sample_items (organization_id, label) values (?, ?)', [org.id, 'late']));
        return { answered: true };
      },
    }),
  ],
});

t.test('a tool call\'s transaction', async (t) => {
  const quad = await startTestApp(t, { plugins: [ledger] });
  const org = await quad.createOrg({ prefix: 'ledg', modules: { ledger: true } });
  const { token } = await issueToken(quad.orm.em.fork(), quad.services, org.id, { name: 'agent', kind: 'agent', scopes: ['ledger:write'] }, { kind: 'officer', actor: 'test' });
  const call = (name: string, args: object) =>
    quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: { authorization: `Bearer ${token}` }, payload: { name, arguments: args } });
  const sql = async (q: string, p: unknown[] = []) => (await quad.orm.em.fork().getConnection().execute(q, p)) as { n: number }[];
  const rows = async (pattern: string) => (await sql('select count(*)::int as n from sample_items where label like ?', [pattern]))[0].n;
  const counted = async () => Number((await sql("select coalesce(sum(count), 0)::int as n from usage_counters where organization_id = ? and key = 'mcp.calls_per_minute'", [org.id]))[0].n);
  const audited = async (result: string) => (await sql("select count(*)::int as n from audit_log where organization_id = ? and action = 'tools.call' and details->>'result' = ?", [org.id, result]))[0].n;

  t.test('what a tool persisted without flushing is written with the call', async (t) => {
    const res = await call('ledger.persist', { label: 'kept' });
    t.equal(res.statusCode, 200);
    t.equal(await rows('kept'), 1);
    t.equal(await counted(), 1);
    t.equal(await audited('ok'), 1);
  });

  t.test('a nested transaction and raw statements are part of the call; the tool reads its own writes', async (t) => {
    const res = await call('ledger.nested', { label: 'nest', fail: false });
    t.same(res.json(), { ok: true, result: { seen: 2 } });
    t.equal(await rows('nest%'), 2);
    t.equal(await counted(), 2);
  });

  t.test('a call that fails after writing keeps nothing and is not counted', async (t) => {
    const res = await call('ledger.nested', { label: 'gone', fail: true });
    t.equal(res.statusCode, 500);
    t.equal(await rows('gone%'), 0, 'neither the nested nor the raw write');
    t.equal(await counted(), 2, 'not counted');
    t.equal(await audited('error_500'), 1, 'the refusal is audited');
  });

  t.test('a failed nested transaction rolls back to its savepoint; the rest of the call is kept', async (t) => {
    const res = await call('ledger.savepoints', { label: 'sp' });
    t.same(res.json(), { ok: true, result: { seen: 1 } });
    t.equal(await rows('sp-outer'), 1, 'the outer write is kept');
    t.equal(await rows('sp-inner'), 0, 'the inner write is rolled back');
  });

  t.test('a tool\'s em cannot write once the call is over', async (t) => {
    t.equal((await call('ledger.late', {})).statusCode, 200);
    await t.rejects(late, 'refused');
    t.equal(await rows('late'), 0);
  });
});
