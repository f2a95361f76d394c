// The officer routes of feeds (spec document 3, "Feeds"): prefix /api/feeds/<org>; 404 while the module is off for
// the org (the core's gate). Creates, changes, deletes and Run now are audited; the webhook URL is never in a
// response, a log line or an audit row.
import { ErrorBody, OrgParams, Type, type RoutesPlugin } from '@quad/core';
import { deleteFeed, feedHistory, getFeed, listFeeds, saveFeed } from './store.js';
import { startRun } from './jobs.js';
import { presetsOf } from './presets.js';
import { Errors, FeedOut, FeedParams, HistoryOut, officer, PresetOut, RunBody, SaveBody } from './schemas.js';

const PREFIX = '/api/feeds/:org';
const tags = ['feeds'];

export const feedRoutes: RoutesPlugin = async (app) => {
  const services = app.quad;

  app.get(`${PREFIX}/feeds`, {
    config: officer,
    schema: { tags, summary: 'Every feed with its schedule, last run, last error and number of posts', params: OrgParams, response: { 200: Type.Object({ feeds: Type.Array(FeedOut) }), ...Errors } },
  }, async (request) => ({ feeds: await listFeeds(request.db, services) }));

  app.get(`${PREFIX}/feeds/:key`, {
    config: officer,
    schema: { tags, summary: 'One feed', params: FeedParams, response: { 200: FeedOut, ...Errors } },
  }, async (request) => getFeed(request.db, services, request.params.key));

  app.put(`${PREFIX}/feeds/:key`, {
    config: officer,
    schema: {
      tags, summary: 'Create (201) or change (200) a feed; kind is fixed at creation (409 kind_fixed); 409 when the org has as many feeds as its limit',
      params: FeedParams, body: SaveBody, response: { 200: FeedOut, 201: FeedOut, ...Errors, 409: ErrorBody, 503: ErrorBody },
    },
  }, async (request, reply) => {
    const { key } = request.params;
    const actor = request.caller?.actor ?? null;
    const { created } = await request.db.transaction(async (tx) => {
      const saved = await saveFeed(tx, services, key, request.body, actor);
      const { webhook_url, config, ...rest } = request.body;
      await request.audit(tx.em, saved.created ? 'feeds.created' : 'feeds.changed', {
        key, ...rest, config_changed: config !== undefined, webhook_changed: webhook_url !== undefined,
      });
      return saved;
    });
    return reply.code(created ? 201 : 200).send(await getFeed(request.db, services, key));
  });

  app.delete(`${PREFIX}/feeds/:key`, {
    config: officer,
    schema: { tags, summary: 'Delete the feed, its items, its runs and its webhook secret', params: FeedParams, response: { 200: Type.Object({ deleted: Type.String() }), ...Errors } },
  }, async (request) => {
    const { key } = request.params;
    await request.db.transaction(async (tx) => {
      await deleteFeed(tx, services, key);
      await request.audit(tx.em, 'feeds.deleted', { key });
    });
    return { deleted: key };
  });

  app.get(`${PREFIX}/feeds/:key/history`, {
    config: officer,
    schema: { tags, summary: 'The last 50 runs and the last 50 items posted or recorded', params: FeedParams, response: { 200: HistoryOut, ...Errors } },
  }, async (request) => feedHistory(request.db, request.params.key));

  app.post(`${PREFIX}/feeds/:key/run`, {
    config: officer,
    schema: {
      tags, summary: 'Start a run now (202; follow it in the history); 409 while a run of the feed is queued or running',
      params: FeedParams, body: Type.Optional(RunBody), response: { 202: Type.Object({ run_id: Type.Integer() }), ...Errors, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const { key } = request.params;
    const postExisting = request.body?.post_existing ?? false;
    const started = await request.db.transaction(async (tx) => {
      const run = await startRun(tx, services, key, postExisting);
      await request.audit(tx.em, 'feeds.run_started', { key, post_existing: postExisting });
      return run;
    });
    return reply.code(202).send(started);
  });

  app.get(`${PREFIX}/presets`, {
    config: officer,
    schema: { tags, summary: 'Feeds offered by the submodules the org subscribes to, ready to send to PUT /feeds/<key>', params: OrgParams, response: { 200: Type.Object({ presets: Type.Array(PresetOut) }), ...Errors } },
  }, async (request) => ({ presets: await presetsOf(services, request.db) }));
};
