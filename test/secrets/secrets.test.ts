// Org secrets through the API and the store: set, list, delete, connected integrations, encryption at rest,
// AAD binding to org and name, org isolation, and no value in any response, log line or audit row.
import t from 'tap';
import { captureLogs } from '@quad/core/testing';
import { keyId } from '../../core/src/secrets/crypto.js';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';
import { demo, newKey, secretValue } from './support.js';

const key = newKey();
// The core's integrations, as their manifests describe them.
const GITHUB_DESCRIPTION = 'Code hosting. A token that can read Actions workflow runs shows private repos in CI; tokens with mcp:github call GitHub\'s own MCP tools (github.<tool>) with it, as far as it allows.';
const MCP_DESCRIPTION = 'Any service with an MCP server (Streamable HTTP): tokens with mcp:remote call its tools as mcp.<tool>, with the token below as a bearer.';

t.test('org secrets', async (t) => {
  const logs = captureLogs('trace');
  const world = await startSignInWorld(t, { plugins: [demo], logger: logs.logger, config: { SECRETS_KEY: [key.text] } });
  const { quad, officer, org } = world;
  const other = await quad.createOrg({ prefix: 'ieee' });
  const token = (await signInOfficer(world, officer.id)).access_token;
  const store = quad.services.secrets;
  const em = () => quad.orm.em.fork();
  const sql = (q: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, params);
  const put = (name: string, payload: unknown, prefix = 'acm') =>
    quad.api.inject({ method: 'PUT', url: `/api/dashboard/${prefix}/secrets/${name}`, headers: bearer(token), payload: payload as object });
  const del = (name: string, prefix = 'acm') =>
    quad.api.inject({ method: 'DELETE', url: `/api/dashboard/${prefix}/secrets/${name}`, headers: bearer(token) });
  const list = (prefix = 'acm') => quad.api.inject({ url: `/api/dashboard/${prefix}/secrets`, headers: bearer(token) });
  const used: string[] = [];
  const responses: string[] = [];
  const value = (tag: string) => { const v = secretValue(tag); used.push(v); return v; };
  const keep = <R extends { body: string }>(res: R) => { responses.push(res.body); return res; };

  t.test('nothing is set at first; every declared secret and integration is listed', async (t) => {
    const res = keep(await list());
    t.equal(res.statusCode, 200);
    t.same(res.json(), {
      secrets: [
        { name: 'mcp.url', label: 'Server URL (https://…/mcp)', module: 'mcp', integration: 'mcp', write_only: true, set: false, updated_at: null },
        { name: 'mcp.token', label: 'Bearer token', module: 'mcp', integration: 'mcp', write_only: true, set: false, updated_at: null },
        { name: 'github.token', label: 'Token (read-only; Actions: read)', module: 'dashboard', integration: 'github', write_only: true, set: false, updated_at: null },
        { name: 'forge.token', label: 'Token', module: 'demo', integration: 'forge', write_only: true, set: false, updated_at: null },
        { name: 'forge.webhook_secret', label: 'Webhook secret', module: 'demo', integration: 'forge', write_only: true, set: false, updated_at: null },
        { name: 'demo.webhook', label: 'Feed webhook address', module: 'demo', integration: null, write_only: true, set: false, updated_at: null },
      ],
      integrations: [{
        key: 'mcp', title: 'MCP server', description: MCP_DESCRIPTION, module: 'mcp', connected: false,
        secrets: [{ name: 'mcp.url', label: 'Server URL (https://…/mcp)', optional: false, set: false }, { name: 'mcp.token', label: 'Bearer token', optional: true, set: false }],
      }, {
        key: 'github', title: 'GitHub', description: GITHUB_DESCRIPTION, module: 'dashboard', connected: false,
        secrets: [{ name: 'github.token', label: 'Token (read-only; Actions: read)', optional: false, set: false }],
      }, {
        key: 'forge', title: 'Forge', description: 'Code hosting', module: 'demo', connected: false,
        secrets: [
          { name: 'forge.token', label: 'Token', optional: false, set: false },
          { name: 'forge.webhook_secret', label: 'Webhook secret', optional: true, set: false },
        ],
      }],
    });
  });

  t.test('PUT stores the value encrypted; the response and the list never hold it', async (t) => {
    const v = value('token');
    const res = keep(await put('forge.token', { value: `  ${v}\n` }));
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.same(Object.keys(body).sort(), ['name', 'set', 'updated_at']);
    t.match(body, { name: 'forge.token', set: true });
    t.ok(Math.abs(new Date(body.updated_at).getTime() - Date.now()) < 60_000);
    t.notOk(res.body.includes(v));

    t.equal(await store.get(em(), org.id, 'forge.token'), v, 'round trip, trimmed');
    const [row] = await sql('select * from org_secrets where organization_id = ? and name = ?', [org.id, 'forge.token']);
    t.not(row.ciphertext, v);
    t.notOk(row.ciphertext.includes(v), 'the table does not hold the plaintext');
    t.equal(row.key_id, keyId(key.bytes));
    t.equal(row.updated_by, `officer:${officer.id}`);

    const listed = keep(await list());
    t.notOk(listed.body.includes(v));
    t.notOk(listed.body.includes(row.ciphertext), 'nor the ciphertext');
    const entry = listed.json().secrets.find((s: { name: string }) => s.name === 'forge.token');
    t.match(entry, { set: true, updated_at: body.updated_at });

    const [audit] = await sql("select * from audit_log where action = 'secrets.set'");
    t.equal(audit.organization_id, org.id);
    t.equal(audit.actor, `officer:${officer.id}`);
    t.same(audit.details, { name: 'forge.token' });
  });

  t.test('equal values encrypt differently (random IV), also across orgs', async (t) => {
    const v = value('same');
    t.equal(keep(await put('demo.webhook', { value: v })).statusCode, 200);
    const first = (await sql("select ciphertext from org_secrets where name = 'demo.webhook'"))[0].ciphertext;
    t.equal(keep(await put('demo.webhook', { value: v })).statusCode, 200);
    const second = (await sql("select ciphertext from org_secrets where name = 'demo.webhook'"))[0].ciphertext;
    t.not(first, second);
    await store.set(em(), other.id, 'demo.webhook', v);
    const rows = await sql("select organization_id, ciphertext from org_secrets where name = 'demo.webhook' order by organization_id");
    t.equal(rows.length, 2);
    t.not(rows[0].ciphertext, rows[1].ciphertext);
    t.equal(await store.get(em(), other.id, 'demo.webhook'), v);
    await store.delete(em(), other.id, 'demo.webhook');
  });

  t.test('bad bodies and unknown names are 400 and store nothing', async (t) => {
    const before = (await sql('select count(*)::int as n, max(updated_at) as at from org_secrets'))[0];
    const long = value('long').padEnd(8193, 'x');
    const cases: [string, unknown, RegExp, string][] = [
      ['forge.token', { value: '' }, /body\.value/, 'validation'],
      ['forge.token', { value: '   \n\t ' }, /body\.value: must not be empty/, 'validation'],
      ['forge.token', { value: long }, /body\.value/, 'validation'],
      ['forge.token', {}, /body\.value: is required/, 'validation'],
      ['forge.token', { value: 'x', other: 1 }, /body/, 'validation'],
      ['gitlab.token', { value: value('unknown') }, /Unknown secret "gitlab\.token"/, 'unknown_secret'],
    ];
    for (const [name, payload, message, reason] of cases) {
      const res = keep(await put(name, payload));
      t.equal(res.statusCode, 400, `${name} ${JSON.stringify(payload).slice(0, 40)}`);
      t.match(res.json(), { error: message, reason });
    }
    t.notOk(responses.some((r) => r.includes(long.slice(0, 30))), 'a refused value is not echoed');
    const unknownDelete = keep(await del('gitlab.token'));
    t.equal(unknownDelete.statusCode, 400);
    t.equal(unknownDelete.json().reason, 'unknown_secret');
    await t.rejects(store.get(em(), org.id, 'gitlab.token'), { name: 'HttpError', statusCode: 400, reason: 'unknown_secret' });
    await t.rejects(store.set(em(), org.id, 'gitlab.token', 'x'), { name: 'HttpError', statusCode: 400, reason: 'unknown_secret' });
    const after = (await sql('select count(*)::int as n, max(updated_at) as at from org_secrets'))[0];
    t.same(after, before);
  });

  t.test('connected flips when the required secrets are set and unset', async (t) => {
    await store.delete(em(), org.id, 'forge.token');
    const connected = async () => (keep(await list())).json().integrations.find((i: { key: string }) => i.key === 'forge').connected;
    t.equal(await store.connected(em(), org.id, 'forge'), false);
    t.equal(await connected(), false);
    t.equal(keep(await put('forge.webhook_secret', { value: value('optional') })).statusCode, 200);
    t.equal(await connected(), false, 'an optional secret alone does not connect');
    t.equal(keep(await put('forge.token', { value: value('token2') })).statusCode, 200);
    t.equal(await connected(), true);
    t.equal(await store.connected(em(), org.id, 'forge'), true);
    t.same((await store.integrations(em(), org.id)).find((i) => i.key === 'forge')!.secrets.map((s) => s.set), [true, true]);
    t.equal(await store.connected(em(), org.id, 'nonesuch'), false);
    t.equal(await store.connected(em(), other.id, 'forge'), false, 'per org');

    const res = keep(await del('forge.token'));
    t.equal(res.statusCode, 200);
    t.same(res.json(), { name: 'forge.token', set: false });
    t.equal(await connected(), false);
    t.equal(await store.get(em(), org.id, 'forge.token'), null);
    t.same([...await store.names(em(), org.id)].sort(), ['demo.webhook', 'forge.webhook_secret']);
    const audits = await sql("select details from audit_log where action = 'secrets.delete'");
    t.same(audits.map((a) => a.details), [{ name: 'forge.token' }]);
    const again = keep(await del('forge.token'));
    t.same(again.json(), { name: 'forge.token', set: false }, 'deleting an unset secret is fine');
    t.equal((await sql("select count(*)::int as n from audit_log where action = 'secrets.delete'"))[0].n, 1, 'and audits nothing');
  });

  t.test('another org never reads or deletes this org\'s secrets', async (t) => {
    const v = value('acm-only');
    t.equal(keep(await put('forge.token', { value: v })).statusCode, 200);
    // ACCESS_ENFORCE=false lets acm's officer through to ieee (logged); the data is still ieee's only.
    const ieee = keep(await list('ieee'));
    t.equal(ieee.statusCode, 200);
    t.ok(ieee.json().secrets.every((s: { set: boolean }) => !s.set), 'ieee sees its own status: nothing set');
    t.equal(ieee.json().integrations.find((i: { key: string }) => i.key === 'forge').connected, false);
    t.ok(logs.messages().some((m) => /access decision=would_deny reason=not_org_officer .*org=ieee/.test(m)));
    t.equal(await store.get(em(), other.id, 'forge.token'), null);
    t.same([...await store.names(em(), other.id)], []);
    keep(await del('forge.token', 'ieee'));
    t.equal(await store.get(em(), org.id, 'forge.token'), v, 'deleting through ieee leaves acm\'s secret');

    const ieeeValue = value('ieee');
    await store.set(em(), other.id, 'forge.token', ieeeValue);
    t.equal(await store.get(em(), org.id, 'forge.token'), v, 'each org reads its own value');
    t.equal(await store.get(em(), other.id, 'forge.token'), ieeeValue);
    await store.delete(em(), other.id, 'forge.token');
    t.equal(await store.get(em(), org.id, 'forge.token'), v);
  });

  t.test('a row copied to another org or name does not decrypt', async (t) => {
    const v = value('bound');
    await store.set(em(), org.id, 'forge.token', v);
    await sql(`insert into org_secrets (organization_id, name, ciphertext, key_id, updated_at)
               select ?, name, ciphertext, key_id, now() from org_secrets where organization_id = ? and name = 'forge.token'`, [other.id, org.id]);
    const err = await store.get(em(), other.id, 'forge.token').then(() => null, (e: Error) => e);
    t.match(err, { name: 'SecretDecryptError', reason: 'secret_undecryptable' }, 'copied to another org: refused, not the wrong value');
    t.notOk(err?.message.includes(v));
    await sql("delete from org_secrets where organization_id = ? and name = 'demo.webhook'", [org.id]);
    await sql(`insert into org_secrets (organization_id, name, ciphertext, key_id)
               select organization_id, 'demo.webhook', ciphertext, key_id from org_secrets where organization_id = ? and name = 'forge.token'`, [org.id]);
    await t.rejects(store.get(em(), org.id, 'demo.webhook'), { name: 'SecretDecryptError', reason: 'secret_undecryptable' }, 'copied to another name: refused');
    t.equal(await store.get(em(), org.id, 'forge.token'), v, 'the original still reads');
    await sql('delete from org_secrets where organization_id = ?', [other.id]);
    await sql("delete from org_secrets where organization_id = ? and name = 'demo.webhook'", [org.id]);
  });

  t.test('deleting an org deletes its secrets', async (t) => {
    const gone = await quad.createOrg({ prefix: 'gone' });
    await store.set(em(), gone.id, 'demo.webhook', value('gone'));
    await sql('delete from organizations where id = ?', [gone.id]);
    t.equal((await sql('select count(*)::int as n from org_secrets where organization_id = ?', [gone.id]))[0].n, 0);
  });

  t.test('no value appears in any response, log line or audit row', async (t) => {
    t.ok(used.length >= 8);
    const text = logs.text();
    t.ok(text.length > 0, 'logs were captured');
    const audits = JSON.stringify(await sql('select * from audit_log'));
    const errors = JSON.stringify(await sql('select * from error_log'));
    for (const v of used) {
      const probe = v.slice(0, 40);
      t.notOk(text.includes(probe), `log lines do not hold ${probe.slice(0, 12)}…`);
      t.notOk(responses.some((r) => r.includes(probe)), 'no response holds it');
      t.notOk(audits.includes(probe), 'no audit row holds it');
      t.notOk(errors.includes(probe), 'no error-log row holds it');
    }
  });
});
