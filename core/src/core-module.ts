// The core module: always on; owns the core tables (top-level migrations/) and the health route.
import { defineModule } from './modules/define.js';
import { healthRoutes } from './http/health.js';

export const coreModule = defineModule({
  name: 'core',
  title: 'Core',
  description: 'Orgs, sign-in, notifications, audit and error logs, jobs and health.',
  category: 'Core',
  core: true,
  migrations: new URL('../../migrations/', import.meta.url),
  routes: healthRoutes,
});
