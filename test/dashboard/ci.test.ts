// CI on the dashboard: PUT /ci/repos (at most 20 owner/name, validated, duplicates dropped) and GET /ci (the
// latest runs per repo from the fake GitHub, cached 120 s in PostgreSQL, private repos through the org's GitHub
// token, errors per repo), without the token in any response or log line.
import t from 'tap';
import { captureLogs } from '@quad/core/testing';
import { startFakeGitHub } from '../fakes/github/index.js';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';

t.test('dashboard CI', async (t) => {
  const github = await startFakeGitHub();
  t.teardown(() => github.close());
  github.addRepo('acm-club/website', { runs: [
    { name: 'Deploy', head_branch: 'main', event: 'push', status: 'completed', conclusion: 'success', display_title: 'Fix footer', run_started_at: '2025-03-01T10:00:00Z' },
    { name: 'CI', head_branch: 'feature', event: 'pull_request', status: 'in_progress', conclusion: null, display_title: 'Add page' },
  ] });
  github.addRepo('acm-club/infra', { private: true, runs: [{ name: 'Terraform', conclusion: 'failure' }] });
  github.addRepo('acm-club/old-name');
  const logs = captureLogs('debug');
  const world = await startSignInWorld(t, {
    logger: logs.logger,
    config: { GITHUB_API_URL: github.url, SECRETS_KEY: [Buffer.alloc(32, 3).toString('base64')] },
  });
  const { quad, org, officer } = world;
  const other = await quad.createOrg({ prefix: 'ieee' });
  const token = (await signInOfficer(world, officer.id)).access_token;
  const sql = (q: string, params: unknown[] = []): Promise<any[]> => quad.orm.em.fork().getConnection().execute(q, params);
  const responses: string[] = [];
  const keep = <R extends { body: string }>(res: R) => { responses.push(res.body); return res; };
  const putRepos = async (payload: unknown, prefix = 'acm') =>
    keep(await quad.api.inject({ method: 'PUT', url: `/api/dashboard/${prefix}/ci/repos`, headers: bearer(token), payload: payload as object }));
  const ci = async (prefix = 'acm') => {
    const res = keep(await quad.api.inject({ url: `/api/dashboard/${prefix}/ci`, headers: bearer(token) }));
    t.equal(res.statusCode, 200);
    return res.json();
  };
  type Repo = { repo: string; runs: Record<string, unknown>[]; error: { reason: string; message: string } | null; fetched_at: string };
  const byRepo = (body: { repos: Repo[] }): Record<string, Repo> => Object.fromEntries(body.repos.map((r) => [r.repo, r]));
  const age = (seconds: number) => sql(`update dashboard_ci_cache set fetched_at = now() - make_interval(secs => ?) where organization_id = ?`, [seconds, org.id]);

  t.test('every invalid repo list is 400 and changes nothing', async (t) => {
    const cases: [unknown, RegExp, string][] = [
      [{}, /body.repos: is required/, 'validation'],
      [{ repos: 'acm-club/website' }, /body.repos: must be array/, 'validation'],
      [{ repos: [42] }, /body.repos.0: must be string/, 'validation'],
      [{ repos: [''] }, /body.repos.0: must NOT have fewer than 1 characters/, 'validation'],
      [{ repos: Array.from({ length: 21 }, (_, i) => `acm-club/r${i}`) }, /body.repos: must NOT have more than 20 items/, 'validation'],
      [{ repos: ['acm-club'] }, /repos\[0\] must be a GitHub repository as owner\/name/, 'invalid_repo'],
      [{ repos: ['acm-club/website', 'a/b/c'] }, /repos\[1\] must be/, 'invalid_repo'],
      [{ repos: ['acm-club/..'] }, /repos\[0\] must be/, 'invalid_repo'],
      [{ repos: ['-acm/site'] }, /repos\[0\] must be/, 'invalid_repo'],
      [{ repos: ['acm club/site'] }, /repos\[0\] must be/, 'invalid_repo'],
      [{ repos: ['https://github.com/acm/site'] }, /repos\[0\] must be/, 'invalid_repo'],
      [{ repos: [`${'a'.repeat(40)}/site`] }, /repos\[0\] must be/, 'invalid_repo'],
      [{ repos: [], extra: 1 }, /body: must NOT have additional properties/, 'validation'],
    ];
    for (const [payload, message, reason] of cases) {
      const res = await putRepos(payload);
      t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 60));
      t.match(res.json(), { error: message, reason });
    }
    t.same(await ci(), { repos: [], cache_seconds: 120 });
    t.equal(github.requests.length, 0);
  });

  t.test('the list is stored in the org config, duplicates dropped, and audited', async (t) => {
    const res = await putRepos({ repos: ['acm-club/website', ' acm-club/infra ', 'ACM-CLUB/Website', 'acm-club/missing', 'acm-club/old-name'] });
    t.equal(res.statusCode, 200);
    t.same(res.json(), { repos: ['acm-club/website', 'acm-club/infra', 'acm-club/missing', 'acm-club/old-name'] });
    const [row] = await sql(`select config -> 'dashboard.ci_repos' as repos from organizations where id = ?`, [org.id]);
    t.same(row.repos, ['acm-club/website', 'acm-club/infra', 'acm-club/missing', 'acm-club/old-name']);
    const [audit] = await sql(`select * from audit_log where action = 'dashboard.ci_repos'`);
    t.match(audit, { organization_id: org.id, actor: `officer:${officer.id}`, details: { repos: ['acm-club/website', 'acm-club/infra', 'acm-club/missing', 'acm-club/old-name'] } });
    t.equal((await putRepos({ repos: Array.from({ length: 20 }, (_, i) => `acm-club/r${i}`) })).statusCode, 200, '20 is allowed');
    await putRepos({ repos: ['acm-club/website', 'acm-club/infra', 'acm-club/missing', 'acm-club/old-name'] });
  });

  t.test('the latest runs of each repo; errors per repo; a private repo needs the token', async (t) => {
    github.renameRepo('acm-club/old-name', 'acm-club/new-name');
    const body = await ci();
    t.same(body.repos.map((r: { repo: string }) => r.repo), ['acm-club/website', 'acm-club/infra', 'acm-club/missing', 'acm-club/old-name']);
    const repos = byRepo(body);
    t.same(repos['acm-club/website'].runs, [
      { name: 'Deploy', branch: 'main', event: 'push', status: 'completed', conclusion: 'success', title: 'Fix footer', url: repos['acm-club/website'].runs[0].url, started_at: '2025-03-01T10:00:00Z' },
      { name: 'CI', branch: 'feature', event: 'pull_request', status: 'in_progress', conclusion: null, title: 'Add page', url: repos['acm-club/website'].runs[1].url, started_at: repos['acm-club/website'].runs[1].started_at },
    ]);
    t.match(repos['acm-club/website'].runs[0].url, /^https:\/\/github\.com\/acm-club\/website\/actions\/runs\/\d+$/);
    t.equal(repos['acm-club/website'].error, null);
    t.match(repos['acm-club/infra'], { runs: [], error: { reason: 'not_found', message: /private and the token cannot read it/ } });
    t.match(repos['acm-club/missing'], { runs: [], error: { reason: 'not_found' } });
    t.match(repos['acm-club/old-name'], { runs: [], error: { reason: 'moved', message: /moved/ } });
    t.equal(github.runRequests('acm-club/new-name').length, 0, 'the redirect was not followed');
    t.equal(github.requests.length, 4);
    t.ok(github.requests.every((r) => r.auth === 'none' && r.query.per_page === '10' && r.headers.accept === 'application/vnd.github+json'));
  });

  t.test('answers are cached 120 s (errors too), shared through PostgreSQL', async (t) => {
    const first = await ci();
    const again = await ci();
    t.same(again, first, 'the same answer, fetched_at included');
    t.equal(github.requests.length, 4, 'no GitHub call within 120 s');
    const [{ n }] = await sql('select count(*)::int as n from dashboard_ci_cache where organization_id = ?', [org.id]);
    t.equal(n, 4);
    await age(119);
    await ci();
    t.equal(github.requests.length, 4, 'still fresh at 119 s');
    await age(121);
    github.setRuns('acm-club/website', [{ name: 'Deploy', display_title: 'Newer commit' }]);
    const later = byRepo(await ci());
    t.equal(github.requests.length, 8, 'stale after 120 s: every repo is fetched again');
    t.equal(later['acm-club/website'].runs[0].title, 'Newer commit');
    t.ok(new Date(later['acm-club/website'].fetched_at) > new Date(byRepo(first)['acm-club/website'].fetched_at));
  });

  t.test('with the org\'s GitHub token, private repos show (and the cache is refreshed)', async (t) => {
    const set = keep(await quad.api.inject({ method: 'PUT', url: '/api/dashboard/acm/secrets/github.token', headers: bearer(token), payload: { value: github.token } }));
    t.equal(set.statusCode, 200);
    const integrations = keep(await quad.api.inject({ url: '/api/dashboard/acm/secrets', headers: bearer(token) })).json().integrations;
    t.match(integrations.find((i: { key: string }) => i.key === 'github'), { module: 'dashboard', connected: true });
    const before = github.requests.length;
    const repos = byRepo(await ci());
    t.equal(github.requests.length, before + 4, 'an answer read without the token is not reused');
    t.ok(github.requests.slice(before).every((r) => r.auth === 'token'));
    t.match(repos['acm-club/infra'], { error: null, runs: [{ name: 'Terraform', conclusion: 'failure' }] });
    await ci();
    t.equal(github.requests.length, before + 4, 'cached again');

    t.test('another org listing the same private repo does not see it', async (t) => {
      await putRepos({ repos: ['acm-club/infra'] }, 'ieee');
      const theirs = await ci('ieee');
      t.match(theirs.repos[0], { repo: 'acm-club/infra', runs: [], error: { reason: 'not_found' } });
      const [row] = await sql(`select with_token from dashboard_ci_cache where organization_id = ?`, [other.id]);
      t.equal(row.with_token, false);
    });
  });

  t.test('a refused token, a rate limit and an outage are per-repo errors', async (t) => {
    await quad.api.inject({ method: 'PUT', url: '/api/dashboard/acm/secrets/github.token', headers: bearer(token), payload: { value: 'ghp_not-a-real-token-1234567890' } });
    await age(200);
    let repos = byRepo(await ci());
    t.match(repos['acm-club/website'].error, { reason: 'bad_credentials' });
    await quad.api.inject({ method: 'PUT', url: '/api/dashboard/acm/secrets/github.token', headers: bearer(token), payload: { value: github.token } });
    await age(200);
    github.rateLimitNext(1);
    repos = byRepo(await ci());
    t.equal(Object.values(repos).filter((r) => r.error?.reason === 'rate_limited').length, 1);
    await age(200);
    github.down(true);
    repos = byRepo(await ci());
    t.match(repos['acm-club/website'], { runs: [], error: { reason: 'unavailable', message: /GitHub answered 503/ } });
    github.down(false);
    const calls = github.requests.length;
    await ci();
    t.equal(github.requests.length, calls, 'an outage is cached too (one call per repo per 120 s)');
    await age(200);
    repos = byRepo(await ci());
    t.equal(repos['acm-club/website'].error, null, 'back once GitHub is');
  });

  t.test('removing a repo from the list drops its cached answer; the overview shows CI', async (t) => {
    await putRepos({ repos: ['acm-club/website'] });
    const rows = await sql('select repo from dashboard_ci_cache where organization_id = ?', [org.id]);
    t.same(rows.map((r: { repo: string }) => r.repo), ['acm-club/website']);
    const overview = keep(await quad.api.inject({ url: '/api/dashboard/acm/overview', headers: bearer(token) })).json();
    t.same(overview.ci.repos.map((r: { repo: string }) => r.repo), ['acm-club/website']);
    t.equal(overview.ci.cache_seconds, 120);
    t.same((await putRepos({ repos: [] })).json(), { repos: [] });
    t.same(await ci(), { repos: [], cache_seconds: 120 });
    t.equal((await sql('select count(*)::int as n from dashboard_ci_cache where organization_id = ?', [org.id]))[0].n, 0);
  });

  t.test('the token is in no response, log line or table but org_secrets', async (t) => {
    const all = responses.join('\n');
    t.notOk(all.includes(github.token));
    t.notOk(logs.text().includes(github.token));
    t.notOk(JSON.stringify(await sql('select * from dashboard_ci_cache')).includes(github.token));
    t.notOk(JSON.stringify(await sql('select * from audit_log')).includes(github.token));
    t.ok(logs.lines.length > 0);
  });
});
