// The careers presets run green against the real lists: an officer adds each preset of the careers submodule (the
// config the Presets page sends, with a webhook URL) and the feed runs against the fake raw-file host serving the
// real README (fixtures/SOURCES.md), recording items with no error. Then the ways a list can change under a feed: a
// renamed column fails the run with an error naming the repository (the route still answers 202, nothing posted),
// and every link changing at once is recorded, not posted (no flood), with the reason as the run's error.
import t from 'tap';
import { readFileSync } from 'node:fs';
import careers from 'quad-submodule-careers';
import { startFeedsWorld } from './world.js';
import { RUN_JOB } from '../jobs.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const HTML_2026 = fixture('summer2026-internships-html-excerpt.md');
const NEW_GRAD_2024 = fixture('new-grad-positions-2024-10-25.md');

const w = await startFeedsWorld(t);
const hook = w.receiver.addWebhook();
const presets = careers.feeds ?? [];
const preset = (key: string) => {
  const found = presets.find((p) => p.key === key);
  if (!found) throw new Error(`no careers preset ${key}`);
  return found;
};
const feed = async (key: string) => (await w.call('GET', `/feeds/${key}`)).json();
const problems = () => w.sql<{ status: string; message: string }>(
  "select status, message from notifications where organization_id = ? and problem_key like 'feeds.run_failed:%' and status = 'open'", [w.org.id]);

t.test('each job preset of careers, added as the Presets page adds it, reads its real list', async (t) => {
  const internships = preset('swe-internships');
  const newGrad = preset('new-grad');
  t.match(internships.config, { repo: 'SimplifyJobs/Summer2026-Internships', branch: 'dev', path: 'README.md', max_age_days: 2 });
  t.match(newGrad.config, { repo: 'SimplifyJobs/New-Grad-Positions', branch: 'dev', path: 'README.md', max_age_days: 2 });
  w.repo.put('SimplifyJobs/Summer2026-Internships', 'dev', 'README.md', HTML_2026);
  w.repo.put('SimplifyJobs/New-Grad-Positions', 'dev', 'README.md', NEW_GRAD_2024);
  for (const p of [internships, newGrad]) {
    const added = await w.call('PUT', `/feeds/${p.key}`, { kind: p.kind, webhook_url: hook.url, config: p.config });
    t.equal(added.statusCode, 201, added.body);
  }
  t.same((await w.call('GET', '/feeds')).json().feeds.map((f: { key: string; config: { repo: string } }) => `${f.key}:${f.config.repo}`),
    ['new-grad:SimplifyJobs/New-Grad-Positions', 'swe-internships:SimplifyJobs/Summer2026-Internships']);

  // The internship list has an Age column: ages count back from the run's time, so the real clock does; 21 rows are 0d.
  await w.runJob(RUN_JOB, { key: 'swe-internships', trigger: 'manual', post_existing: false });
  t.match(await feed('swe-internships'), { last_error: null, first_run_done: true, posts: 0, last_run: { found: 21, new: 21, posted: 0, error: null, note: null } });
  // The 2024 new-grad list writes "Oct 24": the run's time is pinned to the day the README was committed.
  await w.runJob(RUN_JOB, { key: 'new-grad', trigger: 'manual', post_existing: false, now: '2024-10-25T12:00:00.000Z' });
  t.match(await feed('new-grad'), { last_error: null, last_run: { found: 4, new: 4, posted: 0, error: null } });
  t.same(await problems(), []);
  t.equal(w.repo.requests.filter((path) => path === '/SimplifyJobs/Summer2026-Internships/dev/README.md').length, 1, 'read from <base>/<repo>/<branch>/<path>');

  const history = (await w.call('GET', '/feeds/swe-internships/history')).json();
  t.ok(history.items.some((item: { title: string; url: string }) => item.title === 'CAE: Junior Software Developer'
    && item.url === 'https://cae.wd3.myworkdayjobs.com/career/job/Halifax/C-DS-900-Junior-Software-Developer-Intern_120426'), 'recorded with its clean link');
  t.same(history.items.map((i: { status: string }) => i.status).filter((s: string) => s !== 'recorded'), [], 'the first run posts none');
});

t.test('a renamed column: the run fails naming the repository; Run now still answers 202; nothing is posted', async (t) => {
  w.repo.put('SimplifyJobs/Summer2026-Internships', 'dev', 'README.md', HTML_2026.replaceAll('<th>Age</th>', '<th>Days ago</th>'));
  const started = await w.call('POST', '/feeds/swe-internships/run', {});
  t.equal(started.statusCode, 202, started.body);
  await w.runJob(RUN_JOB, { key: 'swe-internships', trigger: 'manual', post_existing: false });
  const after = await feed('swe-internships');
  t.match(after.last_error, /^README\.md of SimplifyJobs\/Summer2026-Internships \(branch dev\) has no job table .*"Company, Role, Location, Application, Days ago"/);
  t.match(after.last_run, { found: 0, new: 0, posted: 0 });
  t.match(await problems(), [{ status: 'open', message: /SimplifyJobs\/Summer2026-Internships/ }], 'the failing feed raises a problem');
  t.equal(w.receiver.webhookPosts.length, 0);

  w.repo.put('SimplifyJobs/Summer2026-Internships', 'dev', 'README.md', HTML_2026);
  await w.runJob(RUN_JOB, { key: 'swe-internships', trigger: 'manual', post_existing: false });
  t.match(await feed('swe-internships'), { last_error: null, last_run: { found: 21, new: 0, posted: 0 } }, 'the list back as it was: nothing new');
  t.same(await problems(), [], 'the problem cleared');
});

t.test('every link changing at once is recorded, not posted', async (t) => {
  const all = await w.call('PUT', '/feeds/all-ages', { kind: 'repo_jobs', webhook_url: hook.url, config: { ...preset('swe-internships').config, max_age_days: 0 } });
  t.equal(all.statusCode, 201);
  await w.runJob(RUN_JOB, { key: 'all-ages', trigger: 'manual', post_existing: false });
  t.match(await feed('all-ages'), { last_error: null, last_run: { found: 48, new: 48 } });

  // Say the list started sending its links through a redirect: every posting's key changes.
  w.repo.put('SimplifyJobs/Summer2026-Internships', 'dev', 'README.md', HTML_2026.replaceAll('<a href="https://', '<a href="https://go.example/?to=https://'));
  await w.runJob(RUN_JOB, { key: 'all-ages', trigger: 'manual', post_existing: false });
  const changed = await feed('all-ages');
  t.match(changed, { posts: 0, last_run: { found: 48, new: 48, posted: 0 } });
  t.match(changed.last_error, /^all 48 items of README\.md of SimplifyJobs\/Summer2026-Internships are new at once: .* recorded without posting/);
  t.equal(w.receiver.webhookPosts.length, 0, 'no flood');

  await w.runJob(RUN_JOB, { key: 'all-ages', trigger: 'manual', post_existing: false });
  t.match(await feed('all-ages'), { last_error: null, posts: 0, last_run: { found: 48, new: 0, posted: 0 } }, 'the next run knows them');

  // A real new role after that is posted as usual.
  const oneMore = HTML_2026.replace('<tbody>\n', '<tbody>\n<tr>\n<td><strong>Quad Labs</strong></td>\n<td>Platform Intern</td>\n<td>Tempe, AZ</td>\n<td>https://jobs.quad.example/1</td>\n<td>0d</td>\n</tr>\n')
    .replaceAll('<a href="https://', '<a href="https://go.example/?to=https://');
  w.repo.put('SimplifyJobs/Summer2026-Internships', 'dev', 'README.md', oneMore);
  await w.runJob(RUN_JOB, { key: 'all-ages', trigger: 'manual', post_existing: false });
  t.match(await feed('all-ages'), { last_error: null, posts: 1, last_run: { found: 49, new: 1, posted: 1 } });
  t.match(w.receiver.webhookPosts.map((p) => (p.body as { embeds: { title: string; url: string }[] }).embeds[0]),
    [{ title: 'New Internship: Quad Labs — Platform Intern', url: 'https://jobs.quad.example/1', fields: [{ name: 'Location', value: 'Tempe, AZ' }] }],
    'only the new role, its bare address as the link')
});
