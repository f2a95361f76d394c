// The tool-call rate counter: checked before the call and counted as the call's last statement, so an org's calls
// do not wait on each other's counter row while they run; concurrent calls against a small limit make exactly
// the limit, failed calls are not counted, and a changed limit holds at once.
import t from 'tap';
import { defineModule, defineTool, Type } from '@quad/core';
import { roomInMinute, startTestApp } from '@quad/core/testing';
import { issueToken } from '../../core/src/auth/token-admin.js';
import { forkFor } from '../../core/src/db/orm.js';
import { toolbox } from '../fixtures/toolbox-module.js';

let release: () => void = () => {};
let entered: () => void = () => {};
const gate = defineModule({
  name: 'gate', title: 'Gate', description: 'A tool that waits until released', category: 'Tests',
  scopes: [{ name: 'gate:use', description: 'Wait' }],
  tools: [defineTool({
    name: 'gate.wait', description: 'Waits', scope: 'gate:use', input: Type.Object({}),
    async handler() {
      entered();
      await new Promise<void>((r) => { release = r; });
      return { released: true };
    },
  })],
});

t.test('tool-call rate counter', async (t) => {
  const quad = await startTestApp(t, { plugins: [toolbox, gate] });
  const sql = (q: string, p: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, p);
  const tokenFor = async (orgId: number, scopes: string[]) =>
    (await issueToken(quad.orm.em.fork(), quad.services, orgId, { name: 'agent', kind: 'agent', scopes }, { kind: 'officer', actor: 'test' })).token;
  const call = (token: string, name: string, args: object) =>
    quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: { authorization: `Bearer ${token}` }, payload: { name, arguments: args } });
  const setLimit = (orgId: number, value: number) =>
    forkFor(quad.orm, orgId).transactional((em) => quad.services.limits.setOverrides(em, orgId, { 'mcp.calls_per_minute': value }, 'test'));
  const used = async (orgId: number) => Number((await sql("select coalesce(sum(count), 0) as n from usage_counters where organization_id = ? and key = 'mcp.calls_per_minute'", [orgId]))[0].n);

  t.test('a running call does not hold up the other calls of its org', async (t) => {
    const org = await quad.createOrg({ prefix: 'slow', modules: { toolbox: true, gate: true } });
    const token = await tokenFor(org.id, ['gate:use', 'toolbox:read']);
    const inside = new Promise<void>((r) => { entered = r; });
    const waiting = call(token, 'gate.wait', {});
    await inside;
    // Before, the waiting call held the org's counter row until it committed: this call could not finish.
    const echo = await call(token, 'toolbox.echo', { text: 'meanwhile' });
    t.equal(echo.statusCode, 200);
    release();
    t.equal((await waiting).statusCode, 200);
  });

  t.test('concurrent calls against a small limit: exactly the limit succeed; failed calls are not counted', async (t) => {
    await roomInMinute(20_000);
    const org = await quad.createOrg({ prefix: 'tight', modules: { toolbox: true } });
    await setLimit(org.id, 5);
    const token = await tokenFor(org.id, ['toolbox:write']);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 3 === 0
      ? call(token, 'toolbox.fail', {})
      : call(token, 'toolbox.write_note', { label: `tight-${i}` }))));
    const writes = answers.filter((_, i) => i % 3 !== 0).map((a) => a.statusCode);
    t.equal(writes.filter((s) => s === 200).length, 5, 'exactly the limit');
    t.equal(writes.filter((s) => s === 429).length, 15, 'the rest are refused');
    t.ok(answers.filter((_, i) => i % 3 === 0).every((a) => a.statusCode === 500 || a.statusCode === 429), 'failing calls fail or are refused');
    t.equal(await used(org.id), 5, 'only the successful calls are counted');
    const [notes] = await sql("select count(*)::int as n from sample_items where organization_id = ? and label like 'tight-%'", [org.id]);
    t.equal(notes.n, 5, 'refused calls kept nothing');
  });

  t.test('a changed limit holds at once', async (t) => {
    await roomInMinute(20_000);
    const org = await quad.createOrg({ prefix: 'change', modules: { toolbox: true } });
    const token = await tokenFor(org.id, ['toolbox:read']);
    await setLimit(org.id, 2);
    for (let i = 0; i < 2; i++) t.equal((await call(token, 'toolbox.echo', { text: 'x' })).statusCode, 200);
    t.equal((await call(token, 'toolbox.echo', { text: 'x' })).statusCode, 429, 'the cached limit is used');
    await setLimit(org.id, 3);
    t.equal((await call(token, 'toolbox.echo', { text: 'x' })).statusCode, 200, 'a raised limit holds at once');
    await setLimit(org.id, 1);
    t.equal((await call(token, 'toolbox.echo', { text: 'x' })).statusCode, 429, 'a lowered one too');
    t.equal(await used(org.id), 3);
  });
});
