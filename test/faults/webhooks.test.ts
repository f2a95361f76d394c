// An outbound event webhook whose receiver fails and then recovers (plugins/event_webhook README, "Delivery"): the
// receiver (the fake Discord's webhook, behind a flaky link: test/faults/flaky-link.ts) answers 500 to the first
// attempt, refuses the connection at the second, takes the third and never answers (slower than DISCORD_TIMEOUT_MS),
// and takes the fourth. The event is delivered exactly once, with the same message every attempt carried (Discord
// webhooks have no delivery id or signature header: the body is what must not change); graphile-worker's schedule
// (e^attempt seconds after each failure) is checked on the job before the test moves its time forward; each failure
// is kept on the webhook and the run waits queued, and the run ends succeeded on its fourth attempt with no problem
// raised and no attempt left.
import t from 'tap';
import { bearer, signInOfficer, startSignInWorld, until } from '@quad/core/testing';
import { probe } from '../../plugins/event_webhook/test/probe.js';
import { startFlakyLink } from './flaky-link.js';
import { RUN_ID } from '../../core/src/jobs/start.js';

const SECRETS_KEY = Buffer.alloc(32, 9).toString('base64');
/** Lowered from 5 s so the receiver that never answers costs one second. */
const DISCORD_TIMEOUT_MS = 1000;

const link = await startFlakyLink(t);
const world = await startSignInWorld(t, {
  plugins: ['./plugins/event_webhook', probe],
  orgModules: { event_webhook: true, probe: true },
  config: { SECRETS_KEY: [SECRETS_KEY], DISCORD_WEBHOOK_URL_BASE: link.url('/api/webhooks/'), DISCORD_TIMEOUT_MS },
});
const { quad, org, officer, discord } = world;
link.forwardTo(discord.url);
const token = (await signInOfficer(world, officer.id)).access_token;
const sql = (q: string, params: unknown[] = []): Promise<any[]> => quad.orm.em.fork().getConnection().execute(q, params);

/** The body of a raw HTTP/1.1 request as the link kept it. */
const bodyOf = (raw: Buffer) => JSON.parse(raw.subarray(raw.indexOf('\r\n\r\n') + 4).toString('utf8'));

t.test('a receiver that fails three ways and then recovers gets the event exactly once', async (t) => {
  const hook = discord.addWebhook();
  const created = await quad.api.inject({
    method: 'POST', url: `/api/dashboard/${org.prefix}/webhooks`, headers: bearer(token),
    payload: { name: 'Orders', destination: link.url(`/api/webhooks/${hook.id}/${hook.token}`), events: ['probe.happened'] },
  });
  t.equal(created.statusCode, 201, created.body);
  const webhookId = created.json().id as number;
  const webhook = async () => (await quad.api.inject({ url: `/api/dashboard/${org.prefix}/webhooks/${webhookId}`, headers: bearer(token) })).json();
  const runs = () => sql(`select id, status, attempts, error from job_runs where name = 'event_webhook.deliver' and (payload->>'webhook_id')::int = ? order by id`, [webhookId]);
  const job = async (runId: number) => (await sql(
    `select attempts, locked_at, run_at, last_error from graphile_worker._private_jobs where payload->>'${RUN_ID}' = ?`, [String(runId)]))[0];
  const dbNow = async () => new Date((await sql('select now() as now'))[0].now).getTime();

  await link.set({ status: 500 });
  let started = await dbNow();
  await quad.services.emit(quad.orm.em.fork(), { orgId: org.id, kind: 'probe.happened', title: 'Order 18 placed', message: 'Order 18 was placed', data: { order: 18 } });
  const [run] = await until('the delivery run', async () => { const rows = await runs(); return rows.length ? rows : null; });
  const runId = Number(run.id);

  /** Waits until graphile-worker has recorded failed attempt `n`, and checks when it will try again. */
  async function failedAttempt(n: number, error: RegExp) {
    const failed = await until(`failed attempt ${n}`, async () => {
      const row = await job(runId);
      return row && row.attempts === n && row.locked_at === null ? row : null;
    });
    const seen = await dbNow();
    // graphile-worker: run_at = greatest(now(), run_at) + e^attempts seconds, now() being when the attempt failed.
    const backoff = Math.exp(n) * 1000;
    const next = new Date(failed.run_at).getTime();
    t.ok(next >= started + backoff - 1 && next <= seen + backoff + 1, `attempt ${n + 1} is due e^${n} s (${Math.round(backoff / 100) / 10} s) after attempt ${n} failed`);
    t.match(await runs(), [{ status: 'queued', attempts: n }], `attempt ${n}: the run waits queued for its retry`);
    const { last_result } = await webhook();
    t.match(last_result, { ok: false, event: 'probe.happened', error }, `attempt ${n}: its failure is kept on the webhook`);
    t.notOk(last_result.error.includes(hook.token) || last_result.error.includes(hook.id), `attempt ${n}: the error names neither the webhook id nor its token`);
    t.equal(discord.webhookPosts.length, 0, `attempt ${n}: nothing was delivered`);
  }
  /** Moves the retry's time to now (the test does not wait out the backoff) with the link failing as `mode` says. */
  async function retryNow(mode: Parameters<typeof link.set>[0]) {
    await link.set(mode);
    started = await dbNow();
    await sql(`update graphile_worker._private_jobs set run_at = now() where payload->>'${RUN_ID}' = ?`, [String(runId)]);
  }

  await failedAttempt(1, /^Discord did not take the message: .*500/);
  t.equal(link.answered.length, 1, 'attempt 1 reached the receiver\'s side and was answered 500');

  await retryNow('refuse');
  await failedAttempt(2, /^Discord did not take the message: .*(refused|ECONNREFUSED)/);

  await retryNow('hang');
  await failedAttempt(3, /^Discord did not take the message: .*(timed out|did not answer|aborted|timeout)/i);
  // Connections that carried a request (the HTTP client may open one more it never uses).
  const hung = link.held.filter((h) => h.mode === 'hang' && h.data.length > 0);
  t.equal(hung.length, 1, 'attempt 3 reached the receiver\'s side once and got no answer');

  await retryNow('pass');
  const done = await quad.waitForRun(runId, 30_000);
  t.equal(done.status, 'succeeded', 'the run ends delivered');
  t.equal(done.attempts, 4);
  t.equal(done.error, null);

  const posts = discord.webhookPosts.filter((p) => p.webhookId === hook.id);
  t.equal(posts.length, 1, 'delivered exactly once');
  t.match(posts[0]!.body, { embeds: [{ title: 'Order 18 placed', description: 'Order 18 was placed', fields: [{ name: 'order', value: '18' }] }] });
  t.same(bodyOf(Buffer.concat([Buffer.from('\r\n\r\n'), link.answered[0]!.body])), posts[0]!.body, 'attempt 1 carried the same message');
  t.same(bodyOf(hung[0]!.data), posts[0]!.body, 'attempt 3 carried the same message');

  t.match((await webhook()).last_result, { ok: true, event: 'probe.happened', error: null }, 'the webhook shows the delivery');
  t.equal(await job(runId), undefined, 'no attempt is left: nothing can post it again');
  t.equal((await runs()).length, 1, 'one run for the one event');
  t.same(await sql(`select id from notifications where problem_key = ?`, [`event_webhook.delivery:${webhookId}`]), [], 'no delivery problem');
});
