// The dashboard core module: the overview, trends and CI routes, and the GitHub integration CI reads private
// repos through.
import { defineModule } from '../modules/define.js';
import { GITHUB_TOKEN_SECRET } from './ci.js';
import { dashboardRoutes } from './routes.js';

export const dashboardModule = defineModule({
  name: 'dashboard',
  title: 'Dashboard',
  description: 'The officer dashboard: overview, trends and CI runs.',
  category: 'Core',
  core: true,
  integrations: [{
    key: 'github',
    title: 'GitHub',
    description: 'Code hosting. A read-only token that can read Actions workflow runs shows private repos in CI.',
    secrets: [{ name: GITHUB_TOKEN_SECRET, label: 'Token (read-only; Actions: read)' }],
  }],
  routes: dashboardRoutes,
});
