// The feeds tools (spec: feeds.list, feeds.presets, feeds.history, feeds.save, feeds.run, feeds.delete with
// confirm), for machine tokens with feeds:manage while the module is on; the core checks both and binds the org.
import { Type, defineTool } from '@quad/core';
import { deleteFeed, feedHistory, getFeed, listFeeds, saveFeed } from './store.js';
import { startRun } from './jobs.js';
import { presetsOf } from './presets.js';
import { FeedKey, FeedOut, HistoryOut, PresetOut, SaveBody } from './schemas.js';

const SCOPE = 'feeds:manage';
const Key = { key: FeedKey };

export const listTool = defineTool({
  name: 'feeds.list',
  title: 'List the org\'s feeds',
  description: 'The org\'s feeds (new job postings or hackathons posted to a Discord channel), each with its schedule, last run, last error '
    + 'and number of posts. Example: {}',
  scope: SCOPE,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ feeds: Type.Array(FeedOut) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ db, services }) {
    return { feeds: await listFeeds(db, services) };
  },
});

export const presetsTool = defineTool({
  name: 'feeds.presets',
  title: 'Feeds offered by subscribed submodules',
  description: 'Ready-made feeds (for example software internships, new grad roles, hackathons) from the submodules the org subscribes to; '
    + 'pass a preset\'s key, kind and config to feeds.save with a webhook_url to add it. Example: {}',
  scope: SCOPE,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ presets: Type.Array(PresetOut) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ db, services }) {
    return { presets: await presetsOf(services, db) };
  },
});

export const historyTool = defineTool({
  name: 'feeds.history',
  title: 'A feed\'s runs and items',
  description: 'The last 50 runs of a feed (found, new, posted, error) and the last 50 items it posted or recorded. Example: {"key": "internships"}',
  scope: SCOPE,
  input: Type.Object(Key, { additionalProperties: false }),
  output: HistoryOut,
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }, input) {
    return feedHistory(db, input.key);
  },
});

export const saveTool = defineTool({
  name: 'feeds.save',
  title: 'Create or change a feed',
  description: 'Creates a feed (kind, webhook_url and for repo_jobs config.repo are required) or changes one (fields left out are kept; the '
    + 'kind cannot change). repo_jobs config: repo "<owner>/<name>", branch (main), path (README.md), label (Job), skip_closed (true), '
    + 'max_age_days (2). hackathons config: sources (listing_a, listing_b, listing_c), min_days_ahead (0), max_days_ahead (90). The first run '
    + 'records the current items without posting them. Example: {"key": "internships", "kind": "repo_jobs", "webhook_url": '
    + '"https://discord.com/api/webhooks/123/abc", "every_hours": 3, "config": {"repo": "SimplifyJobs/Summer2026-Internships"}}',
  scope: SCOPE,
  input: Type.Object({ ...Key, ...SaveBody.properties }, { additionalProperties: false }),
  output: Type.Object({ created: Type.Boolean(), feed: FeedOut }),
  async handler({ db, services, caller }, { key, ...body }) {
    const { created } = await saveFeed(db, services, key, body, caller.actor);
    return { created, feed: await getFeed(db, services, key) };
  },
});

export const runTool = defineTool({
  name: 'feeds.run',
  title: 'Run a feed now',
  description: 'Starts a run of the feed now (it posts up to 25 new items, 0.5 s apart); on a feed\'s first run post_existing true posts the '
    + 'current items instead of only recording them. A run of the feed already queued or running is an error. Example: {"key": "internships"}',
  scope: SCOPE,
  input: Type.Object({ ...Key, post_existing: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  output: Type.Object({ run_id: Type.Integer() }),
  async handler({ db, services }, input) {
    return startRun(db, services, input.key, input.post_existing ?? false);
  },
});

export const deleteTool = defineTool({
  name: 'feeds.delete',
  title: 'Delete a feed',
  description: 'Deletes a feed with its history and its webhook URL. Without confirm it answers what it would delete. Example: {"key": "internships", "confirm": true}',
  scope: SCOPE,
  input: Type.Object(Key, { additionalProperties: false }),
  output: Type.Object({ deleted: Type.String() }),
  confirm: true,
  async preview({ db, services }, input) {
    const feed = await getFeed(db, services, input.key);
    return { delete: feed.key, kind: feed.kind, posts: feed.posts, last_run: feed.last_run?.at ?? null };
  },
  async handler({ db, services }, input) {
    await deleteFeed(db, services, input.key);
    return { deleted: input.key };
  },
});

export const feedTools = [listTool, presetsTool, historyTool, saveTool, runTool, deleteTool];
