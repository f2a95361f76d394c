// The superadmin's view (spec "Submodules"): every submodule with its subscribers, shared pages, passages and the
// pages whose last crawl failed. Reads every org's subscriptions (counts only) and the deployment's shared pages.
import { type RoutesPlugin } from '@quad/core';
import { AdminOut } from '../schemas.js';
import { adminView } from '../records.js';
import { Errors } from '../route-kit.js';

export default (async (app) => {
  app.get('/api/superadmin/submodules', {
    config: { auth: 'superadmin' },
    schema: { tags: ['submodules', 'superadmin'], summary: 'Every submodule: subscribers, shared pages, passages, failing pages', response: { 200: AdminOut, ...Errors } },
  }, (request) => adminView(request.em, app.quad));
}) satisfies RoutesPlugin;
