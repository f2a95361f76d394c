// What a feed may be (spec document 3, "Feed"): the key, every_hours and each kind's config, checked field by
// field with the defaults filled in, so a stored config is always complete. Every refusal is a 400 naming the field.
import { badRequest } from '@quad/core';
import { HACKATHON_SOURCE_IDS, type HackathonSourceId } from './hackathons/index.js';

export const FEED_KINDS = ['repo_jobs', 'hackathons'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

export const KEY_PATTERN = '^[a-z0-9-]{1,40}$';
export const EVERY_HOURS = { minimum: 1, maximum: 168, default: 3 } as const;

export interface RepoJobsConfig { repo: string; branch: string; path: string; label: string; skip_closed: boolean; max_age_days: number }
export interface HackathonsConfig { sources: HackathonSourceId[]; min_days_ahead: number; max_days_ahead: number }
export type FeedConfig = RepoJobsConfig | HackathonsConfig;

const REPO = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
// A git ref or a relative file path: segments of safe characters, never `.` or `..` (they would climb out of the repository).
const REF = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9_./-]{1,200}$/;
const PATH = /^(?!\/)(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9_ ./()-]{1,300}$/;
const MAX_DAYS = 3650;

type Raw = Record<string, unknown>;
const field = (name: string) => `body.config.${name}`;
const invalid = (name: string, rule: string) => badRequest(`${field(name)}: ${rule}`, 'validation', { field: field(name) });

function only(config: Raw, allowed: readonly string[]) {
  for (const name of Object.keys(config)) {
    if (!allowed.includes(name)) throw badRequest(`${field(name)}: not a field of this kind (allowed: ${allowed.join(', ')})`, 'unknown_field', { field: field(name) });
  }
}

function text(config: Raw, name: string, pattern: RegExp, rule: string, fallback?: string): string {
  const value = config[name] ?? fallback;
  if (value === undefined) throw invalid(name, `required: ${rule}`);
  if (typeof value !== 'string' || !pattern.test(value.trim())) throw invalid(name, rule);
  return value.trim();
}

function whole(config: Raw, name: string, min: number, max: number, fallback: number): number {
  const value = config[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw invalid(name, `a whole number from ${min} to ${max}`);
  return value;
}

function flag(config: Raw, name: string, fallback: boolean): boolean {
  const value = config[name] ?? fallback;
  if (typeof value !== 'boolean') throw invalid(name, 'true or false');
  return value;
}

const REPO_JOBS_FIELDS = ['repo', 'branch', 'path', 'label', 'skip_closed', 'max_age_days'] as const;
const HACKATHONS_FIELDS = ['sources', 'min_days_ahead', 'max_days_ahead'] as const;

function repoJobsConfig(config: Raw): RepoJobsConfig {
  only(config, REPO_JOBS_FIELDS);
  return {
    repo: text(config, 'repo', REPO, '<owner>/<name> of a repository on the code-hosting service'),
    branch: text(config, 'branch', REF, 'a branch name', 'main'),
    path: text(config, 'path', PATH, 'a file path inside the repository (no leading / and no . or .. segments)', 'README.md'),
    label: text(config, 'label', /^[^\n]{1,40}$/, 'a word or two (1 to 40 characters) for the post title', 'Job'),
    skip_closed: flag(config, 'skip_closed', true),
    max_age_days: whole(config, 'max_age_days', 0, MAX_DAYS, 2),
  };
}

function hackathonsConfig(config: Raw): HackathonsConfig {
  only(config, HACKATHONS_FIELDS);
  const sources = config.sources ?? [...HACKATHON_SOURCE_IDS];
  const known = (s: unknown): s is HackathonSourceId => HACKATHON_SOURCE_IDS.includes(s as HackathonSourceId);
  if (!Array.isArray(sources) || sources.length === 0 || !sources.every(known) || new Set(sources).size !== sources.length) {
    throw invalid('sources', `one or more of ${HACKATHON_SOURCE_IDS.join(', ')}, each once`);
  }
  const min = whole(config, 'min_days_ahead', 0, MAX_DAYS, 0);
  const max = whole(config, 'max_days_ahead', 0, MAX_DAYS, 90);
  if (max < min) throw invalid('max_days_ahead', `at least min_days_ahead (${min})`);
  return { sources: HACKATHON_SOURCE_IDS.filter((id) => sources.includes(id)), min_days_ahead: min, max_days_ahead: max };
}

/** The kind's config with defaults filled in, or a 400 naming the first bad field. */
export function checkConfig(kind: FeedKind, config: unknown): FeedConfig {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw badRequest('body.config: an object of the kind\'s fields', 'validation', { field: 'body.config' });
  }
  return kind === 'repo_jobs' ? repoJobsConfig(config as Raw) : hackathonsConfig(config as Raw);
}
