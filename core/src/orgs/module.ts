// The org core module: module switches, branding and settings of an org, and the org:read scope.
import { defineModule } from '../modules/define.js';
import { orgRoutes } from './routes.js';
import { orgInfo, orgLimits } from '../tools/core-tools.js';

export const orgModule = defineModule({
  name: 'org',
  title: 'Organisation',
  description: 'Module switches, branding and settings of an org.',
  category: 'Core',
  core: true,
  scopes: [{ name: 'org:read', description: 'Read the org\'s profile, modules and limits' }],
  routes: orgRoutes,
  tools: [orgInfo, orgLimits],
});
