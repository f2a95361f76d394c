// Event webhooks end to end: the officer routes and their validation, the 20-webhook limit, delivery through a
// job to a Discord webhook (the fake Discord as receiver) that fails and then recovers, the test message, no
// redirects, the delivery problem, and no destination in any response, log line or audit row.
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearer, captureLogs, signInOfficer, startFakeDiscord, startSignInWorld, until, type FakeDiscord, type FakeWebhook } from '@quad/core/testing';
import { Organization } from '@quad/core';
import { probe } from './probe.js';
import { deliverJob, DELIVER_JOB } from '../deliver.js';

const SECRETS_KEY = Buffer.alloc(32, 9).toString('base64');

t.test('event webhooks', async (t) => {
  const receiver: FakeDiscord = await startFakeDiscord();
  t.teardown(() => receiver.close());
  const logs = captureLogs('debug');
  const world = await startSignInWorld(t, {
    plugins: ['./plugins/event_webhook', probe],
    orgModules: { event_webhook: true, probe: true },
    logger: logs.logger,
    config: { SECRETS_KEY: [SECRETS_KEY], DISCORD_WEBHOOK_URL_BASE: `${receiver.url}/api/webhooks/` },
  });
  const { quad, org, officer } = world;
  const other = await quad.createOrg({ prefix: 'ieee', modules: { event_webhook: true, probe: true } });
  const token = (await signInOfficer(world, officer.id)).access_token;
  const sql = (q: string, params: unknown[] = []): Promise<any[]> => quad.orm.em.fork().getConnection().execute(q, params);
  const responses: string[] = [];
  const hooks: FakeWebhook[] = [];
  const keep = <R extends { body: string }>(res: R) => { responses.push(res.body); return res; };
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) =>
    keep(await quad.api.inject({ method, url: `/api/dashboard/acm/webhooks${path}`, headers: bearer(token), ...(payload !== undefined && { payload: payload as object }) }));
  const hook = () => { const h = receiver.addWebhook(); hooks.push(h); return h; };
  const emit = (kind: string, title: string, data: Record<string, unknown> = {}, orgId = org.id) =>
    quad.services.emit(quad.orm.em.fork(), { orgId, kind, title, message: `${title} happened`, data });
  const runsOf = async (webhookId: number) => (await sql(`select * from job_runs where name = ? and (payload->>'webhook_id')::int = ? order by id`, [DELIVER_JOB, webhookId]));

  const main = hook();
  let mainId = 0;

  t.test('the list starts empty, with the event kinds and the limit', async (t) => {
    const res = await call('GET', '');
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.same(body.webhooks, []);
    t.same(body.limit, { use: 0, value: 20 });
    t.same(body.events.map((e: { kind: string }) => e.kind), ['error.unhandled', 'job.failed', 'probe.happened', 'probe.other']);
    t.match(body.events.find((e: { kind: string }) => e.kind === 'probe.happened'), { module: 'probe', module_on: true });
    t.match(body.events.find((e: { kind: string }) => e.kind === 'job.failed'), { module: 'events', module_on: true });
  });

  t.test('every invalid body is 400 naming the field, never the URL', async (t) => {
    const good = { name: 'Orders', destination: main.url, events: ['probe.happened'] };
    const bad = (override: Record<string, unknown>) => ({ ...good, ...override });
    const cases: [unknown, RegExp, string][] = [
      [{ destination: main.url, events: ['probe.happened'] }, /body.name: is required/, 'validation'],
      [bad({ name: '' }), /body.name: must NOT have fewer than 1 characters/, 'validation'],
      [bad({ name: '   ' }), /name must not be blank/, 'validation'],
      [bad({ name: 'x'.repeat(101) }), /body.name: must NOT have more than 100 characters/, 'validation'],
      [bad({ name: 7 }), /body.name: must be string/, 'validation'],
      [{ name: 'x', events: ['probe.happened'] }, /body.destination: is required/, 'validation'],
      [bad({ destination: '' }), /body.destination: must NOT have fewer than 1 characters/, 'validation'],
      [bad({ destination: `${receiver.url}/api/webhooks/${'1'.repeat(500)}` }), /body.destination: must NOT have more than 512 characters/, 'validation'],
      [bad({ destination: 'https://example.com/api/webhooks/1/abc' }), /destination must be a Discord webhook URL/, 'invalid_destination'],
      [bad({ destination: 'https://discord.com/api/webhooks/123/abc' }), /destination must be a Discord webhook URL/, 'invalid_destination'],
      [bad({ destination: `${receiver.url}/api/webhooks/abc/token` }), /destination must be a Discord webhook URL/, 'invalid_destination'],
      [bad({ destination: `${receiver.url}/api/webhooks/${main.id}/${main.token}/extra` }), /destination must be a Discord webhook URL/, 'invalid_destination'],
      [bad({ destination: `${main.url}?wait=true` }), /destination must be a Discord webhook URL/, 'invalid_destination'],
      [bad({ destination: main.url.replace('http://', 'http://user:pw@') }), /destination must be a Discord webhook URL/, 'invalid_destination'],
      [bad({ destination: main.url.replace('/api/webhooks/', '/api/webhooks/../') }), /destination must be a Discord webhook URL/, 'invalid_destination'],
      [bad({ events: [] }), /body.events: must NOT have fewer than 1 items/, 'validation'],
      [bad({ events: 'probe.happened' }), /body.events: must be array/, 'validation'],
      [bad({ events: ['probe.happened', 'probe.happened'] }), /body.events: must NOT have duplicate items/, 'validation'],
      [bad({ events: ['probe.happened', 'order.shipped'] }), /events\[1\]: no loaded module emits "order.shipped"/, 'unknown_event'],
      [bad({ events: [''] }), /body.events.0: must NOT have fewer than 1 characters/, 'validation'],
      [bad({ enabled: 'yes' }), /body.enabled: must be boolean/, 'validation'],
      [bad({ secret: true }), /body: must NOT have additional properties/, 'validation'],
    ];
    for (const [payload, message, reason] of cases) {
      const res = await call('POST', '', payload);
      t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 80));
      t.match(res.json(), { error: message, reason });
      t.notOk(res.body.includes(main.token), 'the token is not echoed');
    }
    t.equal((await sql('select count(*)::int as n from event_webhook_webhooks'))[0].n, 0, 'nothing was added');
  });

  t.test('adding a webhook stores the destination encrypted and never shows it', async (t) => {
    const res = await call('POST', '', { name: ' Orders ', destination: ` ${main.url} `, events: ['probe.happened', 'job.failed'] });
    t.equal(res.statusCode, 201);
    const body = res.json();
    mainId = body.id;
    t.same(Object.keys(body).sort(), ['created_at', 'destination_set', 'enabled', 'events', 'id', 'last_result', 'name', 'updated_at']);
    t.match(body, { name: 'Orders', destination_set: true, events: ['probe.happened', 'job.failed'], enabled: true, last_result: null });
    const [row] = await sql('select * from event_webhook_webhooks where id = ?', [mainId]);
    t.equal(row.organization_id, org.id);
    t.notOk(row.destination.includes(main.token), 'the table holds no plaintext');
    t.notOk(row.destination.includes(main.id));
    t.match(row.destination, /^v1\./);
    const [key] = await sql(`select * from org_secrets where organization_id = ? and name = 'event_webhook.key'`, [org.id]);
    t.ok(key, 'the org\'s data key was made, as an org secret');
    const [audit] = await sql(`select * from audit_log where action = 'event_webhook.create'`);
    t.match(audit, { organization_id: org.id, actor: `officer:${officer.id}`, details: { id: mainId, name: 'Orders', events: ['probe.happened', 'job.failed'], enabled: true } });
    t.notOk(JSON.stringify(audit).includes(main.token));
    const listed = (await call('GET', '')).json();
    t.same(listed.webhooks.map((w: { id: number }) => w.id), [mainId]);
    t.same(listed.limit, { use: 1, value: 20 });
    t.same((await call('GET', `/${mainId}`)).json(), listed.webhooks[0]);
  });

  t.test('names are unique per org (any case)', async (t) => {
    const res = await call('POST', '', { name: 'ORDERS', destination: hook().url, events: ['probe.other'] });
    t.equal(res.statusCode, 409);
    t.match(res.json(), { reason: 'name_taken', field: 'body.name' });
  });

  t.test('an event the webhook selected is delivered by a job; others are not', async (t) => {
    const before = receiver.webhookPosts.length;
    await emit('probe.other', 'Not selected');
    const event = await emit('probe.happened', 'Order 17 placed', { order: 17, total: 120, note: '', nested: { a: 1 } });
    const run = await until('a delivery run', async () => (await runsOf(mainId))[0]);
    t.equal((await quad.waitForRun(Number(run.id))).status, 'succeeded');
    const posts = receiver.webhookPosts.slice(before);
    t.equal(posts.length, 1, 'only the selected kind');
    t.equal(posts[0].webhookId, main.id);
    t.same(posts[0].body, {
      embeds: [{
        title: 'Order 17 placed', color: 0x5865F2, footer: { text: 'ACM · probe.happened' }, timestamp: event.createdAt.toISOString(),
        description: 'Order 17 placed happened',
        fields: [{ name: 'order', value: '17', inline: true }, { name: 'total', value: '120', inline: true }],
      }],
      allowed_mentions: { parse: [] },
    });
    const got = (await call('GET', `/${mainId}`)).json();
    t.match(got.last_result, { ok: true, event: 'probe.happened', error: null });
  });

  t.test('a receiver that fails is retried until it recovers; the last result follows', async (t) => {
    receiver.down(true);
    const before = receiver.webhookPosts.length;
    await emit('probe.happened', 'Order 18 placed');
    const failed = await until('the first attempt to fail', async () => {
      const h = (await call('GET', `/${mainId}`)).json();
      return h.last_result?.ok === false ? h : null;
    });
    t.match(failed.last_result, { ok: false, event: 'probe.happened', error: /Discord did not take the message: Discord answered 502/ });
    t.notOk(failed.last_result.error.includes(main.id), 'the error names neither the webhook id…');
    t.notOk(failed.last_result.error.includes(main.token), '…nor its token');
    // The worker records the result before it puts the run back in the queue: wait for the second step.
    const run = await until('the run to wait for its retry', async () => {
      const [last] = (await runsOf(mainId)).slice(-1);
      return last?.status === 'queued' && Number(last.attempts) === 1 ? last : null;
    });
    t.match(run, { status: 'queued', attempts: 1 }, 'the run waits for its retry');
    receiver.down(false);
    const done = await quad.waitForRun(Number(run.id), 20_000);
    t.equal(done.status, 'succeeded');
    t.equal(done.attempts, 2);
    t.equal(receiver.webhookPosts.length, before + 1, 'delivered once it recovered');
    t.equal(receiver.webhookPosts.at(-1)!.body && (receiver.webhookPosts.at(-1)!.body as { embeds: { title: string }[] }).embeds[0].title, 'Order 18 placed');
    t.match((await call('GET', `/${mainId}`)).json().last_result, { ok: true, error: null });
  });

  t.test('after the last attempt the webhook raises a problem; the next success clears it', async (t) => {
    const em = quad.orm.em.fork();
    const orgRow = await em.findOneOrFail(Organization, { id: org.id });
    receiver.down(true);
    const payload = { webhook_id: mainId, event: { id: 1, kind: 'probe.happened', title: 'T', message: '', data: {}, created_at: new Date().toISOString() } };
    const ctx = (attempt: number) => ({ em: quad.emFor(org.id), org: orgRow, payload, services: quad.services, attempt, log: quad.log });
    await t.rejects(deliverJob.handler(ctx(1) as never), /Discord answered 502/);
    t.equal((await sql(`select count(*)::int as n from notifications where problem_key = ?`, [`event_webhook.delivery:${mainId}`]))[0].n, 0, 'not before the last attempt');
    await t.rejects(deliverJob.handler(ctx(5) as never));
    const [problem] = await sql(`select * from notifications where problem_key = ?`, [`event_webhook.delivery:${mainId}`]);
    t.match(problem, { category: 'problem', kind: 'event_webhook.delivery_failed', title: 'Webhook "Orders" cannot deliver events', status: 'open', organization_id: org.id });
    t.notOk(JSON.stringify(problem).includes(main.token));
    receiver.down(false);
    await deliverJob.handler(ctx(1) as never);
    t.equal((await sql(`select count(*)::int as n from notifications where problem_key = ?`, [`event_webhook.delivery:${mainId}`]))[0].n, 0, 'cleared by a success');
  });

  t.test('a failed delivery is never delivered itself (no loop)', async (t) => {
    const runs = (await runsOf(mainId)).length;
    await emit('job.failed', 'Job event_webhook.deliver failed', { job: DELIVER_JOB, run: 1 });
    await emit('job.failed', 'Job probe.sync failed', { job: 'probe.sync', run: 2 });
    const after = await runsOf(mainId);
    t.equal(after.length, runs + 1, 'only the other job\'s failure is delivered');
    const last = after[after.length - 1];
    t.equal(last.payload.event.data.job, 'probe.sync');
    await quad.waitForRun(Number(last.id));
  });

  t.test('changing a webhook: partial updates, selection and switch respected by delivery', async (t) => {
    t.match((await call('PUT', `/${mainId}`, {})).json(), { reason: 'validation', error: /body: must NOT have fewer than 1 properties/ });
    t.match((await call('PUT', `/${mainId}`, { destination: 'https://evil.example/api/webhooks/1/x' })).json(), { reason: 'invalid_destination' });
    t.match((await call('PUT', `/${mainId}`, { events: ['nope.nope'] })).json(), { reason: 'unknown_event' });
    t.equal((await call('PUT', '/999999', { enabled: false })).statusCode, 404);
    t.equal((await call('PUT', '/abc', { enabled: false })).statusCode, 400);

    const off = (await call('PUT', `/${mainId}`, { enabled: false })).json();
    t.match(off, { enabled: false, name: 'Orders', events: ['probe.happened', 'job.failed'], destination_set: true });
    const runs = (await runsOf(mainId)).length;
    await emit('probe.happened', 'While disabled');
    t.equal((await runsOf(mainId)).length, runs, 'a disabled webhook gets no delivery');

    const next = hook();
    const changed = await call('PUT', `/${mainId}`, { enabled: true, destination: next.url, events: ['probe.other'], name: 'Everything else' });
    t.equal(changed.statusCode, 200);
    t.match(changed.json(), { enabled: true, events: ['probe.other'], name: 'Everything else', destination_set: true });
    const [audit] = await sql(`select details from audit_log where action = 'event_webhook.update' order by id desc limit 1`);
    t.same(audit.details, { id: mainId, name: 'Everything else', events: ['probe.other'], enabled: true, destination_changed: true });
    const before = receiver.webhookPosts.length;
    await emit('probe.other', 'To the new channel');
    const [run] = (await runsOf(mainId)).slice(-1);
    await quad.waitForRun(Number(run.id));
    t.equal(receiver.webhookPosts.slice(before).map((p) => p.webhookId).join(), next.id, 'the new destination got it');
  });

  t.test('the test message is sent now, also while disabled, and its result is kept', async (t) => {
    await call('PUT', `/${mainId}`, { enabled: false });
    const before = receiver.webhookPosts.length;
    const res = await call('POST', `/${mainId}/test`);
    t.equal(res.statusCode, 200);
    t.match(res.json(), { ok: true, error: null, webhook: { id: mainId, last_result: { ok: true, event: 'event_webhook.test' } } });
    const post = receiver.webhookPosts[before];
    t.match((post.body as { embeds: { title: string; description: string }[] }).embeds[0], { title: 'Test message from Quad', description: /Everything else.*probe\.other/ });
    receiver.down(true);
    const failed = (await call('POST', `/${mainId}/test`)).json();
    t.match(failed, { ok: false, error: /Discord answered 502/, webhook: { last_result: { ok: false } } });
    receiver.down(false);
    t.equal((await call('POST', '/424242/test')).statusCode, 404);
    t.equal((await sql(`select count(*)::int as n from audit_log where action = 'event_webhook.test'`))[0].n, 2);
  });

  t.test('webhooks of another org are out of reach', async (t) => {
    const theirs = await quad.orm.em.fork().getConnection().execute(
      `insert into event_webhook_webhooks (organization_id, name, destination, events) values (?, 'Theirs', 'v1.x.y.z', '{probe.happened}') returning id`, [other.id]);
    const id = theirs[0].id;
    t.equal((await call('GET', `/${id}`)).statusCode, 404);
    t.equal((await call('PUT', `/${id}`, { enabled: false })).statusCode, 404);
    t.equal((await call('DELETE', `/${id}`)).statusCode, 404);
    t.equal((await call('POST', `/${id}/test`)).statusCode, 404);
    t.notOk((await call('GET', '')).json().webhooks.some((w: { id: number }) => w.id === id));
    await sql('delete from event_webhook_webhooks where id = ?', [id]);
  });

  t.test('at most 20 per org: the 21st is 409 and nothing is added; concurrent adds stop exactly at the limit', async (t) => {
    const add = (name: string) => call('POST', '', { name, destination: hook().url, events: ['probe.other'], enabled: false });
    for (let i = 2; i <= 15; i++) t.equal((await add(`Hook ${i}`)).statusCode, 201);
    const parallel = await Promise.all(Array.from({ length: 10 }, (_, i) => add(`Parallel ${i}`)));
    t.same(parallel.map((r) => r.statusCode).sort(), [201, 201, 201, 201, 201, 409, 409, 409, 409, 409]);
    const refused = await add('One too many');
    t.equal(refused.statusCode, 409);
    t.match(refused.json(), { reason: 'limit_reached', limit: 'event_webhook.webhooks', value: 20, use: 20 });
    t.equal((await sql('select count(*)::int as n from event_webhook_webhooks where organization_id = ?', [org.id]))[0].n, 20);
    t.same((await call('GET', '')).json().limit, { use: 20, value: 20 });
    const otherOrg = await quad.orm.em.fork().getConnection().execute(
      `select count(*)::int as n from event_webhook_webhooks where organization_id = ?`, [other.id]);
    t.equal(otherOrg[0].n, 0, 'the limit is per org');
  });

  t.test('deleting frees a place; queued deliveries to it are dropped', async (t) => {
    const list = (await call('GET', '')).json().webhooks;
    const victim = list.find((w: { name: string }) => w.name === 'Hook 2');
    await call('PUT', `/${victim.id}`, { enabled: true });
    const em = quad.orm.em.fork();
    const queued = await em.transactional(async (tx) => {
      await quad.services.emit(tx, { orgId: org.id, kind: 'probe.other', title: 'Deleted before delivery' });
      // Deleted (on another connection) before the event's transaction commits, so before the job can run.
      return call('DELETE', `/${victim.id}`);
    });
    t.same(queued.json(), { id: victim.id, deleted: true });
    const [run] = (await runsOf(victim.id)).slice(-1);
    t.equal((await quad.waitForRun(Number(run.id))).status, 'succeeded', 'the run ends without sending');
    t.notOk(receiver.webhookPosts.some((p) => (p.body as { embeds: { title: string }[] }).embeds[0].title === 'Deleted before delivery'), 'nothing was sent');
    t.equal((await call('GET', `/${victim.id}`)).statusCode, 404);
    t.equal((await call('DELETE', `/${victim.id}`)).statusCode, 404);
    t.equal((await call('POST', '', { name: 'Fits again', destination: hook().url, events: ['probe.other'], enabled: false })).statusCode, 201);
  });

  t.test('without the org key the destinations cannot be read: said in the list, and deliveries fail cleanly', async (t) => {
    await call('PUT', `/${mainId}`, { enabled: true });
    await sql(`delete from org_secrets where organization_id = ? and name = 'event_webhook.key'`, [org.id]);
    const got = (await call('GET', `/${mainId}`)).json();
    t.equal(got.destination_set, false);
    const res = (await call('POST', `/${mainId}/test`)).json();
    t.match(res, { ok: false, error: /The destination cannot be read: the org secret event_webhook.key was deleted/ });
    const fixed = (await call('PUT', `/${mainId}`, { destination: main.url })).json();
    t.equal(fixed.destination_set, true, 'setting it again makes a new key');
    t.match((await call('POST', `/${mainId}/test`)).json(), { ok: true });
  });

  t.test('the overview has the module\'s section while it is on; its routes and deliveries stop when it is off', async (t) => {
    const overview = keep(await quad.api.inject({ url: '/api/dashboard/acm/overview', headers: bearer(token) })).json();
    t.same(overview.modules.event_webhook, { webhooks: 20, enabled: 1, failing: 0 });
    const trends = keep(await quad.api.inject({ url: '/api/dashboard/acm/trends?days=7', headers: bearer(token) })).json();
    const delivered = trends.series.find((s: { key: string }) => s.key === 'event_webhook.delivered');
    t.ok(delivered.values.at(-1) >= 4, 'today\'s deliveries are counted');

    await quad.updateOrg(org.id, { modules: { probe: true, event_webhook: false } });
    t.equal((await call('GET', '')).statusCode, 404);
    const runs = (await sql(`select count(*)::int as n from job_runs where name = ?`, [DELIVER_JOB]))[0].n;
    await emit('probe.other', 'While the module is off');
    t.equal((await sql(`select count(*)::int as n from job_runs where name = ?`, [DELIVER_JOB]))[0].n, runs, 'no delivery is queued');
    const after = keep(await quad.api.inject({ url: '/api/dashboard/acm/overview', headers: bearer(token) })).json();
    t.notOk('event_webhook' in after.modules);
    await quad.updateOrg(org.id, { modules: { probe: true, event_webhook: true } });
  });

  t.test('no destination appears in any response, log line or audit row', async (t) => {
    const texts = [responses.join('\n'), logs.text(), JSON.stringify(await sql('select * from audit_log')), JSON.stringify(await sql('select * from error_log')),
      JSON.stringify(await sql('select * from notifications')), JSON.stringify(await sql('select payload, error from job_runs'))];
    for (const h of hooks) {
      for (const text of texts) {
        t.notOk(text.includes(h.token), `token of webhook ${h.id}`);
        t.notOk(text.includes(h.url));
      }
    }
    t.ok(logs.lines.length > 0, 'logs were captured');
  });
});

t.test('redirects are never followed', async (t) => {
  const receiver = await startFakeDiscord();
  t.teardown(() => receiver.close());
  const target = receiver.addWebhook();
  const redirector = createServer((req, res) => {
    res.writeHead(307, { Location: `${target.url}` });
    res.end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => redirector.close(() => resolve())));
  const base = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/api/webhooks/`;
  const world = await startSignInWorld(t, {
    plugins: ['./plugins/event_webhook', probe], orgModules: { event_webhook: true, probe: true },
    config: { SECRETS_KEY: [SECRETS_KEY], DISCORD_WEBHOOK_URL_BASE: base },
  });
  const token = (await signInOfficer(world, world.officer.id)).access_token;
  const add = await world.quad.api.inject({
    method: 'POST', url: '/api/dashboard/acm/webhooks', headers: bearer(token),
    payload: { name: 'Redirected', destination: `${base}${target.id}/${target.token}`, events: ['probe.other'] },
  });
  t.equal(add.statusCode, 201);
  const res = await world.quad.api.inject({ method: 'POST', url: `/api/dashboard/acm/webhooks/${add.json().id}/test`, headers: bearer(token) });
  t.match(res.json(), { ok: false, error: /unexpected 307/ });
  t.equal(receiver.webhookPosts.length, 0, 'the redirect target never got the message');
});

t.test('the production rule: only Discord webhook URLs', async (t) => {
  const { isAllowedWebhookUrl } = await import('@quad/core');
  const DEFAULT_WEBHOOK_BASE = 'https://discord.com/api/webhooks/';
  const ok = ['https://discord.com/api/webhooks/123456789012345678/AbC_d-9', 'https://discordapp.com/api/webhooks/1/x', 'https://discord.com/api/v10/webhooks/1/x'];
  const bad = ['http://discord.com/api/webhooks/1/x', 'https://discord.com.evil.io/api/webhooks/1/x', 'https://evil.io/https://discord.com/api/webhooks/1/x',
    'https://discord.com/api/webhooks/1/x?wait=true', 'https://discord.com/api/webhooks/1/x/slack', 'https://discord.com:8443/api/webhooks/1/x',
    'https://user@discord.com/api/webhooks/1/x', 'https://discord.com/api/webhooks/abc/x', 'https://canary.discord.com/api/webhooks/1/x', ' https://discord.com/api/webhooks/1/x'];
  for (const url of ok) t.ok(isAllowedWebhookUrl(url, DEFAULT_WEBHOOK_BASE), url);
  for (const url of bad) t.notOk(isAllowedWebhookUrl(url, DEFAULT_WEBHOOK_BASE), url);
  t.notOk(isAllowedWebhookUrl('http://127.0.0.1:1/api/webhooks/1/x', DEFAULT_WEBHOOK_BASE), 'loopback only with a test base');
  t.ok(isAllowedWebhookUrl('http://127.0.0.1:1/api/webhooks/1/x', 'http://127.0.0.1:1/api/webhooks/'));
  t.notOk(isAllowedWebhookUrl('http://127.0.0.1:1/api/webhooks/1/x', 'http://127.0.0.1:2/api/webhooks/'));
});

t.test('without SECRETS_KEY a destination cannot be stored (503) and nothing is added', async (t) => {
  const receiver = await startFakeDiscord();
  t.teardown(() => receiver.close());
  const world = await startSignInWorld(t, {
    plugins: ['./plugins/event_webhook', probe], orgModules: { event_webhook: true, probe: true },
    config: { DISCORD_WEBHOOK_URL_BASE: `${receiver.url}/api/webhooks/` },
  });
  const token = (await signInOfficer(world, world.officer.id)).access_token;
  const res = await world.quad.api.inject({
    method: 'POST', url: '/api/dashboard/acm/webhooks', headers: bearer(token),
    payload: { name: 'No key', destination: receiver.addWebhook().url, events: ['probe.other'] },
  });
  t.equal(res.statusCode, 503);
  t.match(res.json(), { reason: 'secrets_unconfigured' });
  const list = await world.quad.api.inject({ url: '/api/dashboard/acm/webhooks', headers: bearer(token) });
  t.same(list.json().webhooks, [], 'the list still works');
});
