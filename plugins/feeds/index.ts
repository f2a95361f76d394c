// @quad/plugin-feeds: the feeds module (spec document 3, "Feeds"; category Webhooks, off by default). Each feed posts
// new listings to one chat-platform webhook: repo_jobs (a repository README's job tables, repo-jobs.ts) and
// hackathons (three public listings, hackathons/). Issue 19 lands it in increments: so far the manifest carries the
// listings' base-URL settings; routes, the feeds.run_due job, posting and tools come next.
import { Type, defineModule } from '@quad/core';
import { HACKATHON_SOURCES } from './hackathons/index.js';

/** One base-URL setting per hackathon listing, with the real service as its default. */
const SettingsSchema = Type.Object(Object.fromEntries(Object.values(HACKATHON_SOURCES).map((source) => [
  source.setting,
  Type.String({ default: source.defaultUrl, pattern: '^https?://', description: `base URL of ${source.service}'s listing` }),
])));

export default defineModule({
  name: 'feeds',
  title: 'Feeds',
  description: 'New job postings and hackathons, posted to a Discord channel per feed.',
  category: 'Webhooks',
  coreVersion: '^0.1.0',
  settings: SettingsSchema,
});
