// Dashboard routes (officers of the org): the overview, trends, CI runs and the CI repo list.
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GitHubClient } from '../adapters/github/index.js';
import { ErrorBody, OrgParams } from '../http/schemas.js';
import { ChangeView, JobRunView, NotificationView } from '../events/routes.js';
import { CI_REPOS_MAX, CiRuns } from './ci.js';
import { overview } from './overview.js';
import { TREND_DAYS_DEFAULT, TREND_DAYS_MAX, TREND_DAYS_MIN, trends } from './trends.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Text = Nullable(Type.String());

const RunView = Type.Object({
  name: Text, branch: Text, event: Text, status: Text, conclusion: Text, title: Text, url: Text, started_at: Text,
});
const CiView = Type.Object({
  repos: Type.Array(Type.Object({
    repo: Type.String(),
    runs: Type.Array(RunView),
    error: Nullable(Type.Object({
      reason: Type.String({ description: 'not_found, bad_credentials, forbidden, rate_limited, moved, invalid or unavailable' }),
      message: Type.String(),
    })),
    fetched_at: Type.String({ format: 'date-time' }),
  })),
  cache_seconds: Type.Integer(),
});

const OverviewView = Type.Object({
  org: Type.Object({ id: Type.Integer(), prefix: Type.String(), name: Type.String() }),
  generated_at: Type.String({ format: 'date-time' }),
  counts: Type.Object({
    open_problems: Type.Integer(), open_events: Type.Integer(), open_errors: Type.Integer(),
    errors_24h: Type.Integer(), failed_jobs_24h: Type.Integer(), changes_7d: Type.Integer(),
  }),
  problems: Type.Array(NotificationView),
  ci: CiView,
  modules: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), { description: 'one section per module that is on' }),
  recent: Type.Object({ changes: Type.Array(ChangeView), job_runs: Type.Array(JobRunView) }),
});

const TrendsView = Type.Object({
  days: Type.Integer(),
  since: Type.String({ description: 'first UTC day, YYYY-MM-DD' }),
  until: Type.String({ description: 'last UTC day (today), YYYY-MM-DD' }),
  dates: Type.Array(Type.String()),
  series: Type.Array(Type.Object({ module: Type.String(), key: Type.String(), title: Type.String(), values: Type.Array(Type.Number()) })),
  unavailable: Type.Array(Type.String(), { description: 'modules whose series failed' }),
});

export const dashboardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { registry, settings, secrets } = app.quad;
  const ci = new CiRuns(new GitHubClient({ apiUrl: settings.GITHUB_API_URL, timeoutMs: settings.GITHUB_TIMEOUT_MS }), secrets, app.log);
  const auth = 'officer' as const;
  const tags = ['dashboard'];

  app.get('/api/dashboard/:org/overview', {
    config: { auth },
    schema: {
      tags, params: OrgParams, response: { 200: OverviewView },
      summary: 'Every dashboard section in one response: counts, open problems, CI, sections of the modules that are on, recent changes and job runs',
    },
  }, async (request) => overview({ em: request.em, org: request.org!, registry, services: app.quad, ci, log: request.log }));

  app.get('/api/dashboard/:org/trends', {
    config: { auth },
    schema: {
      tags, params: OrgParams,
      summary: 'One series per chart, one value per UTC day (today last); modules that are off have no series',
      querystring: Type.Object({
        days: Type.Integer({ minimum: TREND_DAYS_MIN, maximum: TREND_DAYS_MAX, default: TREND_DAYS_DEFAULT }),
      }, { additionalProperties: false }),
      response: { 200: TrendsView, 400: ErrorBody },
    },
  }, async (request) => trends({ em: request.em, org: request.org!, registry, services: app.quad, log: request.log }, request.query.days));

  app.get('/api/dashboard/:org/ci', {
    config: { auth },
    schema: {
      tags, params: OrgParams, response: { 200: CiView },
      summary: 'The latest GitHub Actions runs of each listed repo (cached 120 s; private repos through the org\'s GitHub token)',
    },
  }, async (request) => ci.runs(request.em, request.org!.id));

  app.put('/api/dashboard/:org/ci/repos', {
    config: { auth },
    schema: {
      tags, params: OrgParams,
      summary: `Set the repos shown in CI: owner/name each, at most ${CI_REPOS_MAX} (duplicates are dropped)`,
      body: Type.Object({
        repos: Type.Array(Type.String({ minLength: 1, maxLength: 150 }), { maxItems: CI_REPOS_MAX }),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ repos: Type.Array(Type.String()) }), 400: ErrorBody },
    },
  }, async (request) => {
    const org = request.org!;
    const repos = await request.em.transactional(async (em) => {
      const list = await ci.setRepos(em, org.id, request.body.repos);
      await request.audit(em, 'dashboard.ci_repos', { repos: list });
      return list;
    });
    app.orgs.invalidate(org.id);
    return { repos };
  });
};
