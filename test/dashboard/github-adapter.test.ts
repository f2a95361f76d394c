// The GitHub adapter against the fake GitHub (and two tiny servers for a slow and a garbled answer).
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GitHubClient, GitHubRequestError, GitHubUnavailable, isRepoName } from '../../core/src/adapters/github/index.js';
import { startFakeGitHub } from '../fakes/github/index.js';

t.test('workflow runs', async (t) => {
  const github = await startFakeGitHub();
  t.teardown(() => github.close());
  github.addRepo('acm/site', { runs: Array.from({ length: 15 }, (_, i) => ({ display_title: `run ${i}` })) });
  github.addRepo('acm/secret', { private: true });
  const client = new GitHubClient({ apiUrl: `${github.url}/` });

  const runs = await client.workflowRuns('acm/site', { perPage: 5 });
  t.equal(runs.length, 5);
  t.same(Object.keys(runs[0]).sort(), ['branch', 'conclusion', 'event', 'name', 'started_at', 'status', 'title', 'url']);
  t.equal(runs[0].title, 'run 0');
  const [req] = github.requests;
  t.match(req, { method: 'GET', path: '/repos/acm/site/actions/runs', query: { per_page: '5' }, auth: 'none' });
  t.equal(req.headers.accept, 'application/vnd.github+json');
  t.equal(req.headers['x-github-api-version'], '2022-11-28');
  t.ok(req.headers['user-agent']);
  t.equal(req.headers.authorization, undefined, 'no token, no Authorization header');

  await t.rejects(client.workflowRuns('acm/secret'), { name: 'GitHubRequestError', status: 404, reason: 'not_found' });
  t.equal((await client.workflowRuns('acm/secret', { token: github.token })).length, 1);
  t.equal(github.requests.at(-1)!.headers.authorization, `Bearer ${github.token}`);
  const refused = await client.workflowRuns('acm/site', { token: 'ghp_wrong_token_value' }).catch((e: unknown) => e);
  t.ok(refused instanceof GitHubRequestError);
  t.match(refused, { status: 401, reason: 'bad_credentials' });
  t.notOk(String((refused as Error).message).includes('ghp_wrong_token_value'), 'the token is not in the message');
  t.equal((await client.workflowRuns('acm/site', { perPage: 500 })).length, 15, 'per_page is clamped to 100');
  t.equal(github.requests.at(-1)!.query.per_page, '100');
  await t.rejects(client.workflowRuns('acm/site/../../user'), TypeError);
  for (const good of ['acm/site', 'a/b', 'acm-club/web.site_2', `${'a'.repeat(39)}/x`]) t.ok(isRepoName(good), good);
  for (const bad of ['acm', 'acm/', '/site', 'acm/site/x', '-acm/site', `${'a'.repeat(40)}/x`, 'acm/..', 'acm/.', 'ac m/site', 'acm/si te']) t.notOk(isRepoName(bad), bad);
});

t.test('slow, garbled and unreachable answers are GitHubUnavailable', async (t) => {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/repos/acm/slow/')) {
      setTimeout(() => { res.writeHead(200); res.end('{"workflow_runs": []}'); }, 1000);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(req.url?.startsWith('/repos/acm/garbled/') ? '<html>' : '{"runs": []}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  const client = new GitHubClient({ apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 200 });
  await t.rejects(client.workflowRuns('acm/slow'), { name: 'GitHubUnavailable', message: /timed out after 200 ms/ });
  await t.rejects(client.workflowRuns('acm/garbled'), { name: 'GitHubUnavailable', message: /unreadable/ });
  await t.rejects(client.workflowRuns('acm/shape'), { name: 'GitHubUnavailable', message: /unexpected answer/ });
  const closed = new GitHubClient({ apiUrl: 'http://127.0.0.1:1' });
  const err = await closed.workflowRuns('acm/site').catch((e: unknown) => e);
  t.ok(err instanceof GitHubUnavailable);
  t.match(err, { message: /ECONNREFUSED|network error/ });
});
