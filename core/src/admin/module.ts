// The superadmin core module: the operator's view of every org.
import { defineModule } from '../modules/define.js';
import { adminRoutes } from './routes.js';

export const adminModule = defineModule({
  name: 'admin',
  title: 'Superadmin',
  description: 'Orgs, officer roles, publishers, server health, and the audit and error logs of every org.',
  category: 'Core',
  core: true,
  routes: adminRoutes,
});
