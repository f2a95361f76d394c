// CI on the dashboard: the latest GitHub Actions runs of the repos an org lists (org config `dashboard.ci_repos`,
// at most 20). Each repo's answer (runs or the error) is cached 120 s in PostgreSQL (dashboard_ci_cache), so
// every API process shares it and GitHub sees at most one call per org and repo every 120 s whatever the number
// of processes and officers. Private repos are read with the org's `github.token` (integration `github`); the
// token is never sent to the client, logged or stored outside org_secrets.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { GitHubRequestError, isRepoName, type GitHubClient, type WorkflowRun } from '../adapters/github/index.js';
import { badRequest } from '../http/errors.js';
import { getOrgConfig, setOrgConfig } from '../orgs/org-config.js';
import { orgDbFor, type OrgDb } from '../db/org-db.js';
import type { SecretsService as SecretStore } from '../core-services.js';

export const CI_REPOS_KEY = 'dashboard.ci_repos';
export const CI_REPOS_MAX = 20;
export const CI_CACHE_SECONDS = 120;
export const CI_RUNS_PER_REPO = 10;
export const GITHUB_TOKEN_SECRET = 'github.token';

export interface CiError { reason: string; message: string }
export interface CiRepo { repo: string; runs: WorkflowRun[]; error: CiError | null; fetched_at: string }
export interface CiAnswer { repos: CiRepo[]; cache_seconds: number }

interface CacheRow { repo: string; fetched_at: Date | string; runs: WorkflowRun[]; error: CiError | null }

/** Check and normalise a repo list: `owner/name` each, at most 20, duplicates (any case) dropped. */
export function normaliseRepos(repos: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  repos.forEach((raw, i) => {
    const repo = raw.trim();
    if (!isRepoName(repo)) throw badRequest(`repos[${i}] must be a GitHub repository as owner/name, e.g. acm-club/website`, 'invalid_repo', { field: `body.repos.${i}` });
    if (seen.has(repo.toLowerCase())) return;
    seen.add(repo.toLowerCase());
    out.push(repo);
  });
  if (out.length > CI_REPOS_MAX) throw badRequest(`repos: at most ${CI_REPOS_MAX}`, 'too_many_repos', { field: 'body.repos' });
  return out;
}

export class CiRuns {
  constructor(private readonly github: GitHubClient, private readonly secrets: SecretStore, private readonly log: FastifyBaseLogger) {}

  async repos(em: EntityManager, orgId: number): Promise<string[]> {
    const stored = await getOrgConfig<unknown>(em, orgId, CI_REPOS_KEY);
    return Array.isArray(stored) ? stored.filter((r): r is string => typeof r === 'string') : [];
  }

  /** Replace the list (in the caller's transaction); cached answers of repos no longer listed are dropped. */
  async setRepos(em: EntityManager, orgId: number, repos: string[]): Promise<string[]> {
    const list = normaliseRepos(repos);
    await setOrgConfig(em, orgId, CI_REPOS_KEY, list.length ? list : null);
    const keep = list.map((r) => r.toLowerCase());
    const db = orgDbFor(em, orgId);
    await db.run`delete from dashboard_ci_cache where ${db.inOrg()} and not (repo = any(${keep}::text[]))`;
    return list;
  }

  /** The org's token, or null when none is set (or secrets are not configured, or it cannot be read). */
  private async token(em: EntityManager, orgId: number): Promise<string | null> {
    if (!this.secrets.configured) return null;
    try {
      return await this.secrets.get(em, orgId, GITHUB_TOKEN_SECRET);
    } catch (err) {
      this.log.warn({ err: { name: (err as Error).name, message: (err as Error).message } }, `dashboard CI: the github token of org ${orgId} cannot be read; public repos only`);
      return null;
    }
  }

  /** The latest runs of every listed repo, from the cache when it is younger than 120 s. */
  async runs(em: EntityManager, orgId: number): Promise<CiAnswer> {
    const repos = await this.repos(em, orgId);
    if (!repos.length) return { repos: [], cache_seconds: CI_CACHE_SECONDS };
    const token = await this.token(em, orgId);
    const keys = repos.map((r) => r.toLowerCase());
    const db = orgDbFor(em, orgId);
    const cached = await db.sql<CacheRow>`select repo, fetched_at, runs, error from dashboard_ci_cache
       where ${db.inOrg()} and with_token = ${token !== null} and fetched_at > now() - make_interval(secs => ${CI_CACHE_SECONDS})
         and repo = any(${keys}::text[])`;
    const byRepo = new Map(cached.map((row) => [row.repo, row]));
    const fresh = await Promise.all(repos.filter((r) => !byRepo.has(r.toLowerCase())).map((repo) => this.fetch(db, repo, token)));
    for (const row of fresh) byRepo.set(row.repo, row);
    return {
      repos: repos.map((repo) => {
        const row = byRepo.get(repo.toLowerCase())!;
        return { repo, runs: row.runs ?? [], error: row.error ?? null, fetched_at: new Date(row.fetched_at).toISOString() };
      }),
      cache_seconds: CI_CACHE_SECONDS,
    };
  }

  private async fetch(db: OrgDb, repo: string, token: string | null): Promise<CacheRow> {
    let runs: WorkflowRun[] = [];
    let error: CiError | null = null;
    try {
      runs = await this.github.workflowRuns(repo, { token, perPage: CI_RUNS_PER_REPO });
    } catch (err) {
      error = err instanceof GitHubRequestError
        ? { reason: err.reason, message: err.message }
        : { reason: 'unavailable', message: err instanceof Error ? err.message : 'GitHub is unavailable' };
      this.log.info(`dashboard CI: ${repo} for org ${db.org}: ${error.message}`);
    }
    // Errors are cached like runs: a missing repo or an outage costs one GitHub call per 120 s, not one per view.
    const row = await db.one<CacheRow>`insert into dashboard_ci_cache (organization_id, repo, with_token, fetched_at, runs, error)
       values (${db.org}, ${repo.toLowerCase()}, ${token !== null}, now(), ${JSON.stringify(runs)}::jsonb, ${error ? JSON.stringify(error) : null}::jsonb)
       on conflict (organization_id, repo) do update
         set with_token = excluded.with_token, fetched_at = excluded.fetched_at, runs = excluded.runs, error = excluded.error
       returning repo, fetched_at, runs, error`;
    return row!;
  }
}
