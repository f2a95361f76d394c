// Feeds end to end against fakes (real HTTP on loopback): the officer routes and every validation error, the
// webhook kept only as the org secret alert_webhook_<key>, module-off 404s, the first-run rule, a receiver that
// fails then recovers (items stay new, a problem raised then cleared), the 25-item cap and 0.5 s spacing with a
// recording clock, hackathon sources failing, run_due's schedule, the tools, and the legacy modules turning feeds on.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { orgDb } from '@quad/core';
import { bearer } from '@quad/core/testing';
import { jobsReadme, startFeedsWorld } from './world.js';
import { runFeed, POST_BATCH, POST_GAP_MS } from '../run.js';
import { RUN_DUE_JOB, RUN_JOB } from '../jobs.js';

const NOW = '2026-11-27T12:00:00.000Z';
const w = await startFeedsWorld(t, { LIMIT_FEEDS_FEEDS: 4 });
const { quad, receiver, repo } = w;
const hook = receiver.addWebhook();
const REPO = 'simplify/internships';
const jobsFeed = { kind: 'repo_jobs', webhook_url: hook.url, config: { repo: REPO } };
const bodies: string[] = [];
const call: typeof w.call = async (...args) => { const res = await w.call(...args); bodies.push(res.body); return res; };
const postsTo = (id: string) => receiver.webhookPosts.filter((p) => p.webhookId === id);
const titles = (id: string) => postsTo(id).map((p) => (p.body as { embeds: { title: string }[] }).embeds[0]!.title);
const problems = () => w.sql<{ status: string }>("select status from notifications where organization_id = ? and problem_key like 'feeds.run_failed:%'", [w.org.id]);

t.test('validation: every refusal is a 400 naming the field, nothing stored', async (t) => {
  const cases: [string, unknown, number, string][] = [
    ['Bad_Key', jobsFeed, 400, 'params.key'],
    ['k', { webhook_url: hook.url, config: { repo: REPO } }, 400, 'body.kind'],
    ['k', { kind: 'repo_jobs', config: { repo: REPO } }, 400, 'body.webhook_url'],
    ['k', { ...jobsFeed, webhook_url: 'https://evil.example/api/webhooks/1/x' }, 400, 'body.webhook_url'],
    ['k', { ...jobsFeed, config: {} }, 400, 'body.config.repo'],
    ['k', { ...jobsFeed, config: { repo: 'no-slash' } }, 400, 'body.config.repo'],
    ['k', { ...jobsFeed, config: { repo: REPO, path: '../secrets' } }, 400, 'body.config.path'],
    ['k', { ...jobsFeed, config: { repo: REPO, max_age_days: -1 } }, 400, 'body.config.max_age_days'],
    ['k', { ...jobsFeed, config: { repo: REPO, sources: ['listing_a'] } }, 400, 'body.config.sources'],
    ['k', { ...jobsFeed, every_hours: 0 }, 400, 'every_hours'],
    ['k', { ...jobsFeed, every_hours: 169 }, 400, 'every_hours'],
    ['k', { kind: 'hackathons', webhook_url: hook.url, config: { sources: [] } }, 400, 'body.config.sources'],
    ['k', { kind: 'hackathons', webhook_url: hook.url, config: { sources: ['listing_d'] } }, 400, 'body.config.sources'],
    ['k', { kind: 'hackathons', webhook_url: hook.url, config: { min_days_ahead: 10, max_days_ahead: 5 } }, 400, 'body.config.max_days_ahead'],
    ['k', { kind: 'other', webhook_url: hook.url }, 400, 'kind'],
  ];
  for (const [key, body, status, field] of cases) {
    const res = await call('PUT', `/feeds/${key}`, body);
    t.equal(res.statusCode, status, `${field}: ${res.body}`);
    t.match(res.body, field.replace('body.', '').split('.').pop()!, `the error names ${field}`);
  }
  t.same((await call('GET', '/feeds')).json(), { feeds: [] }, 'nothing was stored');
  t.same(await w.sql("select name from org_secrets where name like 'alert_webhook_%'"), []);
});

t.test('create, read, change: the webhook is a write-only org secret', async (t) => {
  const made = await call('PUT', '/feeds/jobs', { ...jobsFeed, every_hours: 6 });
  t.equal(made.statusCode, 201, made.body);
  t.match(made.json(), {
    key: 'jobs', kind: 'repo_jobs', every_hours: 6, enabled: true, webhook_set: true, first_run_done: false, last_run: null, posts: 0,
    config: { repo: REPO, branch: 'main', path: 'README.md', label: 'Job', skip_closed: true, max_age_days: 2 },
  });
  const [secret] = await w.sql<{ ciphertext: string }>("select ciphertext from org_secrets where organization_id = ? and name = 'alert_webhook_jobs'", [w.org.id]);
  t.ok(secret, 'stored as the org secret alert_webhook_jobs');
  t.notMatch(secret!.ciphertext, hook.token, 'encrypted at rest');
  const listing = await quad.api.inject({ url: '/api/dashboard/acm/secrets', headers: bearer(w.officerToken) });
  t.match(listing.body, /alert_webhook_jobs/, 'the secrets listing shows it is set');
  const again = await call('PUT', '/feeds/jobs', { every_hours: 12, enabled: false });
  t.equal(again.statusCode, 200);
  t.match(again.json(), { every_hours: 12, enabled: false, schedule: { next_run_at: null }, config: { repo: REPO } });
  const kind = await call('PUT', '/feeds/jobs', { kind: 'hackathons' });
  t.equal(kind.statusCode, 409);
  t.equal(kind.json().reason, 'kind_fixed');
  t.equal((await call('PUT', '/feeds/jobs', { config: { repo: REPO, label: 'Internship' }, enabled: true })).json().config.label, 'Internship');
  t.equal((await call('GET', '/feeds/nope')).statusCode, 404);
  t.equal((await call('GET', '/feeds/jobs/history')).statusCode, 200);
  for (const body of bodies) t.notMatch(body, hook.token, 'no response holds the webhook token');
  const audit = await w.sql<{ details: unknown }>("select details from audit_log where action like 'feeds.%'");
  t.ok(audit.length >= 3, 'changes are audited');
  t.notMatch(JSON.stringify(audit), hook.token, 'no audit row holds it');
});

t.test('module off: every feed route is 404, and the feeds tools are not there', async (t) => {
  for (const [method, path] of [['GET', '/feeds'], ['GET', '/feeds/jobs'], ['PUT', '/feeds/jobs'], ['POST', '/feeds/jobs/run'], ['GET', '/presets']] as const) {
    const res = await call(method, path, method === 'PUT' ? jobsFeed : undefined, 'beta');
    t.equal(res.statusCode, 404, `${method} ${path}`);
  }
});

t.test('the first run records, later runs post new items; a failing receiver keeps them new', async (t) => {
  repo.put(REPO, 'main', 'README.md', jobsReadme([['Stripe', 'SWE Intern', 'Nov 27'], ['Figma', 'Design Eng Intern', 'Nov 26'], ['Oldco', 'Intern', 'Nov 01']]));
  await w.runJob(RUN_JOB, { key: 'jobs', trigger: 'manual', post_existing: false, now: NOW });
  let feed = (await call('GET', '/feeds/jobs')).json();
  t.match(feed, { first_run_done: true, last_error: null, posts: 0, last_run: { found: 2, new: 2, posted: 0 } }, 'two recent rows recorded, the old one filtered');
  t.equal(postsTo(hook.id).length, 0, 'nothing posted on the first run');

  repo.put(REPO, 'main', 'README.md', jobsReadme([['Stripe', 'SWE Intern', 'Nov 27'], ['Figma', 'Design Eng Intern', 'Nov 26'], ['Notion', 'Backend Intern', 'Nov 27']]));
  receiver.down(true);
  await w.runJob(RUN_JOB, { key: 'jobs', trigger: 'manual', post_existing: false, now: NOW });
  feed = (await call('GET', '/feeds/jobs')).json();
  t.match(feed, { last_run: { found: 3, new: 1, posted: 0 }, last_error: /posting failed after 0 of 1: Discord/ });
  t.notMatch(feed.last_error, hook.token);
  t.same((await problems()).map((p) => p.status), ['open'], 'a problem is raised');

  receiver.down(false);
  await w.runJob(RUN_JOB, { key: 'jobs', trigger: 'schedule', post_existing: false, now: NOW });
  feed = (await call('GET', '/feeds/jobs')).json();
  t.match(feed, { last_run: { found: 3, new: 0, posted: 1, error: null }, last_error: null, posts: 1 });
  t.same(titles(hook.id), ['New Internship: Notion — Backend Intern'], 'the item that failed goes out once, on the next run');
  const embed = (postsTo(hook.id)[0]!.body as { embeds: { url: string }[]; allowed_mentions: unknown });
  t.equal(embed.embeds[0]!.url, 'https://jobs.example/2-Backend%20Intern', 'the link without tracking parameters');
  t.same(embed.allowed_mentions, { parse: [] });
  t.same(await problems(), [], 'the problem cleared');

  const history = (await call('GET', '/feeds/jobs/history')).json();
  t.same(history.runs.map((r: { posted: number }) => r.posted), [1, 0, 0], 'runs newest first');
  t.match(history.items[0], { title: 'Notion: Backend Intern', status: 'posted' });
  t.same(history.items.slice(1).map((i: { status: string }) => i.status), ['recorded', 'recorded']);
});

t.test('Run now: 202, one at a time (409), post_existing on a first run', async (t) => {
  const other = receiver.addWebhook();
  t.equal((await call('PUT', '/feeds/fresh', { ...jobsFeed, webhook_url: other.url })).statusCode, 201);
  const started = await call('POST', '/feeds/fresh/run', { post_existing: true });
  t.equal(started.statusCode, 202);
  t.ok(started.json().run_id);
  t.equal((await call('POST', '/feeds/fresh/run', {})).statusCode, 409, 'a run of the feed is queued');
  t.equal((await call('POST', '/feeds/nope/run', {})).statusCode, 404);
  const [queued] = await w.sql<{ payload: Record<string, unknown> }>(
    "select payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'feeds.run'");
  t.match(queued!.payload, { key: 'fresh', post_existing: true });
  await w.runJob(RUN_JOB, { key: 'fresh', trigger: 'manual', post_existing: true, now: NOW });
  t.equal(postsTo(other.id).length, 3, 'a first run with post_existing posts the current items');
});

t.test('at most 25 posts a run, 0.5 s apart (a recording clock)', async (t) => {
  const wide = receiver.addWebhook();
  t.equal((await call('PUT', '/feeds/wide', { ...jobsFeed, webhook_url: wide.url, config: { repo: 'big/list', max_age_days: 0 } })).statusCode, 201);
  repo.put('big/list', 'main', 'README.md', jobsReadme([['Seed', 'Role', 'Jan 01']]));
  // The run's handle, as the job gets it: the service's, bound to the org.
  const db = orgDb(quad.emFor(w.org.id));
  await runFeed({ db, services: quad.services }, 'wide', { trigger: 'manual', now: new Date(NOW) });
  repo.put('big/list', 'main', 'README.md', jobsReadme([['Seed', 'Role', 'Jan 01'], ...Array.from({ length: 30 }, (_, i) => [`Co${i}`, `Role ${i}`, 'Nov 20'] as [string, string, string])]));
  const waits: number[] = [];
  const sleep = async (ms: number) => { waits.push(ms); };
  const first = await runFeed({ db, services: quad.services }, 'wide', { trigger: 'manual', now: new Date(NOW), sleep });
  t.match(first, { found: 31, new: 30, posted: POST_BATCH, error: null });
  t.same(waits, Array(POST_BATCH - 1).fill(POST_GAP_MS), 'one wait of 0.5 s between posts');
  t.equal(postsTo(wide.id).length, 25);
  const second = await runFeed({ db, services: quad.services }, 'wide', { trigger: 'manual', now: new Date(NOW), sleep });
  t.match(second, { new: 0, posted: 5 }, 'the rest go out next run, oldest first');
  t.equal(new Set(postsTo(wide.id).map((p) => JSON.stringify(p.body))).size, 30, 'each item posted once');
});

t.test('hackathons: merged sources; one source down is a note, all down fail the run', async (t) => {
  const hack = receiver.addWebhook();
  t.equal((await call('PUT', '/feeds/hack', { kind: 'hackathons', webhook_url: hack.url, config: { sources: ['listing_a', 'listing_b'] } })).statusCode, 201);
  const now = '2026-03-01T12:00:00.000Z';
  w.listings.fail('listing_b', { status: 500 });
  await w.runJob(RUN_JOB, { key: 'hack', trigger: 'manual', post_existing: true, now });
  let feed = (await call('GET', '/feeds/hack')).json();
  t.match(feed, { last_error: null, last_run: { note: /listing_b/ } });
  t.ok(feed.last_run.found > 0 && feed.last_run.posted === feed.last_run.found, 'listing_a\'s events posted');
  t.match(titles(hack.id)[0], /^New hackathon: /);
  w.listings.fail('listing_a', 'garbage');
  await w.runJob(RUN_JOB, { key: 'hack', trigger: 'manual', post_existing: false, now });
  feed = (await call('GET', '/feeds/hack')).json();
  t.match(feed.last_error, /every hackathon source failed: listing_a: .*; listing_b: answered HTTP 500/);
  w.listings.fail('listing_a', null);
  w.listings.fail('listing_b', null);
});

t.test('run_due: enabled feeds of orgs with feeds on whose period passed, once', async (t) => {
  await w.sql("update feeds set next_run_at = now() - interval '1 minute'");
  await w.sql("update feeds set enabled = false where key = 'hack'");
  const betaFeed = await w.sql<{ id: number }>("insert into feeds (organization_id, key, kind, config) values (?, 'off', 'hackathons', '{}') returning id", [w.beta.id]);
  t.ok(betaFeed.length);
  await w.runJob(RUN_DUE_JOB, {}, null);
  const queued = async () => (await w.sql<{ key: string }>(
    "select payload->>'key' as key from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'feeds.run' order by 1")).map((r) => r.key);
  // fresh: its Run now is still queued (no worker here), and that run is the schedule's too.
  t.same(await queued(), ['fresh', 'jobs', 'wide'], 'the paused feed and the org with feeds off are left out');
  await w.runJob(RUN_DUE_JOB, {}, null);
  t.same(await queued(), ['fresh', 'jobs', 'wide'], 'a second schedule run starts nothing more');
  const [jobs] = await w.sql<{ next: boolean }>("select next_run_at > now() + interval '11 hours' as next from feeds where key = 'jobs'");
  t.ok(jobs!.next, 'moved every_hours ahead');
});

t.test('tools: feeds:manage, delete with confirm; delete removes the secret', async (t) => {
  const token = (await quad.issueToken(w.org.id, { scopes: ['feeds:manage'] })).token;
  const none = (await quad.issueToken(w.org.id, { scopes: ['org:read'] })).token;
  const tool = (name: string, args: unknown, as = token) => quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(as), payload: { name, arguments: args } });
  t.equal((await tool('feeds.list', {}, none)).json().reason, 'unknown_tool', 'without the scope the tool does not exist');
  t.same((await tool('feeds.list', {})).json().result.feeds.map((f: { key: string }) => f.key), ['fresh', 'hack', 'jobs', 'wide']);
  t.same((await tool('feeds.presets', {})).json().result, { presets: [] }, 'no submodules loaded: no presets');
  const limit = await tool('feeds.save', { key: 'fifth', ...jobsFeed });
  t.equal(limit.json().reason, 'limit_reached', `the count limit (4 here): ${limit.body}`);
  const saved = await tool('feeds.save', { key: 'hack', every_hours: 24 });
  t.match(saved.json().result, { created: false, feed: { key: 'hack', every_hours: 24 } });
  t.equal((await tool('feeds.history', { key: 'hack' })).json().result.key, 'hack');
  const preview = await tool('feeds.delete', { key: 'fresh' });
  t.match(preview.json(), { confirm_required: true });
  t.equal((await call('GET', '/feeds/fresh')).statusCode, 200, 'not deleted without confirm');
  t.match((await tool('feeds.delete', { key: 'fresh', confirm: true })).json().result, { deleted: 'fresh' });
  t.equal((await call('DELETE', '/feeds/jobs')).statusCode, 200);
  t.same(await w.sql("select name from org_secrets where name in ('alert_webhook_fresh', 'alert_webhook_jobs')"), [], 'their webhook secrets are gone');
  t.same(await w.sql("select 1 from feeds_items i join feeds f on f.id = i.feed_id where f.key in ('fresh', 'jobs')"), []);
  t.equal((await call('DELETE', '/feeds/jobs')).statusCode, 404);
});

t.test('orgs that had job_webhook or hackathon_webhook get feeds on (the migration\'s statement)', async (t) => {
  const legacy = await quad.createOrg({ prefix: 'legacy', modules: { job_webhook: true } });
  const plain = await quad.createOrg({ prefix: 'plain', modules: { hackathon_webhook: false } });
  const sql = readFileSync(new URL('../migrations/0001_feeds.sql', import.meta.url), 'utf8');
  await w.sql(sql.slice(sql.lastIndexOf('update organizations')));
  const modules = await w.sql<{ prefix: string; feeds: boolean | null }>("select prefix, (modules->>'feeds')::boolean as feeds from organizations where id in (?, ?) order by prefix", [legacy.id, plain.id]);
  t.same(modules, [{ prefix: 'legacy', feeds: true }, { prefix: 'plain', feeds: null }]);
});
