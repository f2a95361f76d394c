// Mounts a module's routes as an encapsulated child context behind the core hooks: every route is
// tagged with its module, must declare an auth policy, and answers 404 for an org that has the module off.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { ManifestError, type Registry } from '../modules/registry.js';
import type { AuthPolicies } from './auth-policies.js';
import { notFound } from './errors.js';

export interface MountOptions {
  /** Module name, used in boot errors and for the module gate. */
  module: string;
  registry: Registry;
  policies: AuthPolicies;
  /** Gate routes on the org's module switch. Default: true (core modules are always on anyway). */
  gate?: boolean;
  /** Policy for routes that declare none (only for third-party route plugins such as the docs UI). */
  defaultAuth?: 'public';
}

export async function mountRoutes(app: FastifyInstance, routes: FastifyPluginAsync<any>, options: MountOptions) {
  const scopes = new Set(options.registry.scopes.keys());
  await app.register(async (child) => {
    child.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), module: options.module };
      if (route.config.auth === undefined && options.defaultAuth) route.config.auth = options.defaultAuth;
      const problem = options.policies.problem(route.config.auth, scopes);
      if (problem) {
        const methods = ([] as string[]).concat(route.method).join(',');
        throw new ManifestError(options.module, `routes: ${methods} ${route.url}`, problem);
      }
    });
    if (options.gate !== false) {
      child.addHook('onRequest', async (request) => {
        if (request.org && !options.registry.isEnabled(request.org.modules, options.module)) {
          throw notFound(`The ${options.module} module is off for this org`, 'module_off');
        }
      });
    }
    await child.register(routes);
  });
}
