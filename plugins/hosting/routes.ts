// The officer routes of hosting under /api/dashboard/<org>/apps (spec document 1, "Dashboard routes": list,
// register, delete, deploy, roll back apps and read the pod); 404 while the module is off for the org (the core's
// gate). Changes are audited (secret env values are never in a request: only the names of org secrets).
// GET /api/dashboard/<org>/hosting/providers belongs to the pods module and answers while either module is on.
import { ErrorBody, OrgParams, Type, type RoutesPlugin } from '@quad/core';
import { checkManifest, ManifestBody } from './app-manifest.js';
import { changeManifest, deleteApp, getApp, LIMIT_KEY, listApps, registerApp } from './apps.js';
import { deployHistory, startDeploy, startRollback } from './deploys.js';
import { livePod } from './pod.js';
import {
  AppOut, AppParams, DeployBody, DeployOut, Errors, HistoryOut, HistoryQuery, officer, PodOut, RegisterBody,
} from './schemas.js';

const PREFIX = '/api/dashboard/:org/apps';
const tags = ['hosting'];
const Conflict = { 409: ErrorBody };
const ProviderErrors = { 424: ErrorBody, 503: ErrorBody };

export const hostingRoutes: RoutesPlugin = async (app) => {
  const services = app.quad;

  app.get(PREFIX, {
    config: officer,
    schema: { tags, summary: 'The org\'s apps with their current deploy and health, by name', params: OrgParams, response: { 200: Type.Object({ apps: Type.Array(AppOut) }), ...Errors } },
  }, async (request) => ({ apps: await listApps(request.db) }));

  app.post(PREFIX, {
    config: { ...officer, countLimit: LIMIT_KEY },
    schema: {
      tags, summary: 'Register an app (201); 409 name_taken, 409 limit_reached (hostprov.apps); nothing runs until its first deploy',
      params: OrgParams, body: RegisterBody, response: { 201: AppOut, ...Errors, ...Conflict },
    },
  }, async (request, reply) => {
    const { name, ...fields } = request.body;
    const manifest = checkManifest(fields);
    // The route's countLimit runs it in one transaction with the reservation.
    await registerApp(request.db, name, manifest, request.caller?.actor ?? null);
    await request.audit(request.em, 'hostprov.app_registered', { app: name, image: manifest.image, secret_env: Object.keys(manifest.secret_env) });
    return reply.code(201).send(await getApp(request.db, name));
  });

  app.get(`${PREFIX}/:name`, {
    config: officer,
    schema: { tags, summary: 'One app with its current deploy, its newest deploy and its health', params: AppParams, response: { 200: AppOut, ...Errors } },
  }, async (request) => getApp(request.db, request.params.name));

  app.put(`${PREFIX}/:name`, {
    config: officer,
    schema: {
      tags, summary: 'Replace the app\'s manifest; it applies at the next deploy. 409 pod_fixed when compute or ports change once the app has a pod',
      params: AppParams, body: ManifestBody, response: { 200: AppOut, ...Errors, ...Conflict },
    },
  }, async (request) => {
    const { name } = request.params;
    const manifest = checkManifest(request.body);
    await request.db.transaction(async (tx) => {
      await changeManifest(tx, name, manifest);
      await request.audit(tx.em, 'hostprov.app_changed', { app: name, image: manifest.image, secret_env: Object.keys(manifest.secret_env) });
    });
    return getApp(request.db, name);
  });

  app.delete(`${PREFIX}/:name`, {
    config: officer,
    schema: {
      tags, summary: 'Terminate the app\'s pod at the provider, then delete the app and its deploys (424 when the provider fails: nothing deleted)',
      params: AppParams, response: { 200: Type.Object({ deleted: Type.String(), pod_terminated: Type.Union([Type.String(), Type.Null()]) }), ...Errors, ...ProviderErrors },
    },
  }, async (request) => {
    const { name } = request.params;
    const done = await deleteApp(request.db, services, name);
    await request.audit(request.em, 'hostprov.app_deleted', { app: name, pod_id: done.pod_terminated });
    return { deleted: name, ...done };
  });

  app.post(`${PREFIX}/:name/deploys`, {
    config: officer,
    schema: {
      tags, summary: 'Deploy a tag or a digest of the app\'s image (202; a job does it); 409 while a deploy of the app is in progress',
      params: AppParams, body: DeployBody, response: { 202: DeployOut, ...Errors, ...Conflict },
    },
  }, async (request, reply) => {
    const { name } = request.params;
    const deploy = await request.db.transaction(async (tx) => {
      const started = await startDeploy(tx, services, name, request.body, 'officer', request.caller?.actor ?? null);
      await request.audit(tx.em, 'hostprov.deploy_started', { app: name, deploy_id: started.id, image: started.image });
      return started;
    });
    return reply.code(202).send(deploy);
  });

  app.get(`${PREFIX}/:name/deploys`, {
    config: officer,
    schema: { tags, summary: 'The app\'s deploys, newest first (limit default 20, at most 100; before pages on)', params: AppParams, querystring: HistoryQuery, response: { 200: HistoryOut, ...Errors } },
  }, async (request) => deployHistory(request.db, request.params.name, request.query));

  app.post(`${PREFIX}/:name/rollback`, {
    config: officer,
    schema: {
      tags, summary: 'Roll back to the last healthy deploy before the current one (202; a job does it); 409 when there is none or a deploy is in progress',
      params: AppParams, response: { 202: DeployOut, ...Errors, ...Conflict },
    },
  }, async (request, reply) => {
    const { name } = request.params;
    const deploy = await request.db.transaction(async (tx) => {
      const started = await startRollback(tx, services, name, request.caller?.actor ?? null);
      await request.audit(tx.em, 'hostprov.rolled_back', { app: name, deploy_id: started.id, rollback_of: started.rollback_of, image: started.image });
      return started;
    });
    return reply.code(202).send(deploy);
  });

  app.get(`${PREFIX}/:name/pod`, {
    config: officer,
    schema: {
      tags, summary: 'The app\'s pod live from the provider; 404 before the first deploy, 424 when the provider fails',
      params: AppParams, response: { 200: PodOut, ...Errors, ...ProviderErrors },
    },
  }, async (request) => livePod(request.db, services, request.params.name));
};
