// The dashboard core module: the overview, trends and CI routes, and the GitHub integration CI reads private
// repos through, whose tools also come from GitHub's own MCP server (scope mcp:github, see tools/module.ts).
import { defineModule } from '../modules/define.js';
import { GITHUB_TOKEN_SECRET } from './ci.js';
import { testGitHub } from './github-test.js';
import { dashboardRoutes } from './routes.js';
import { ownerRepoArgument } from '../tools/repo-limit.js';

export const dashboardModule = defineModule({
  name: 'dashboard',
  title: 'Dashboard',
  description: 'The officer dashboard: overview, trends and CI runs.',
  category: 'Core',
  core: true,
  integrations: [{
    key: 'github',
    title: 'GitHub',
    description: 'Code hosting. A token that can read Actions workflow runs shows private repos in CI; tokens with mcp:github call GitHub\'s own MCP tools (github.<tool>) with it, as far as it allows.',
    // The token is a credential: write-only (not `readable`).
    secrets: [{ name: GITHUB_TOKEN_SECRET, label: 'Token (read-only; Actions: read)' }],
    // github-test.ts: GET /rate_limit with the token.
    test: testGitHub,
    remote: true,
    mcp: {
      // The deployment's setting, never the org's: it may be private (a proxy, or the fake in tests).
      url: (_values, services) => services.settings.GITHUB_MCP_URL,
      trusted: true,
      headers: (values) => ({ authorization: `Bearer ${values[GITHUB_TOKEN_SECRET]}` }),
      // GitHub's tools name a repository by `owner` and `repo` together (its search tools add `repo:<owner>/<repo>`
      // to the query only with both): a `repo` of the form `owner/name` alone names none.
      repoArgument: ownerRepoArgument,
    },
  }],
  routes: dashboardRoutes,
});
