// The module's deployment settings: where each outside listing lives (base URLs, so tests point them at fakes).
import { Type, type CoreServices, type Static } from '@quad/core';
import { HACKATHON_SOURCE_IDS, HACKATHON_SOURCES, type HackathonSourceId } from './hackathons/index.js';

const BaseUrl = (description: string, defaultUrl: string) => Type.String({ default: defaultUrl, pattern: '^https?://', description });

export const FeedsSettings = Type.Object({
  FEEDS_REPO_RAW_URL: BaseUrl('base URL of raw repository files (repo_jobs reads <base>/<owner>/<name>/<branch>/<path>)', 'https://raw.githubusercontent.com'),
  // One base-URL setting per hackathon listing, with the real service as its default.
  ...Object.fromEntries(Object.values(HACKATHON_SOURCES).map((source) => [source.setting, BaseUrl(`base URL of ${source.service}'s listing`, source.defaultUrl)])),
});
export type FeedsSettings = Static<typeof FeedsSettings> & Record<string, string>;

export const settingsOf = (services: CoreServices) => services.moduleSettings<FeedsSettings>('feeds');

const withoutSlash = (url: string) => url.replace(/(?<!\/)\/+$/, '');

/** Each listing's base URL from the settings. */
export function listingUrls(settings: FeedsSettings): Record<HackathonSourceId, string> {
  return Object.fromEntries(HACKATHON_SOURCE_IDS.map((id) => [id, withoutSlash(settings[HACKATHON_SOURCES[id].setting]!)])) as Record<HackathonSourceId, string>;
}

export const rawFileUrl = (settings: FeedsSettings, repo: string, branch: string, path: string) =>
  `${withoutSlash(settings.FEEDS_REPO_RAW_URL)}/${repo}/${branch.split('/').map(encodeURIComponent).join('/')}/${path.split('/').map(encodeURIComponent).join('/')}`;
