// The run log (spec "Run record", table knowledge_runs): one row per crawl or uploaded file of an org, the last
// 500 kept. Writing a row deletes the rows beyond the 500th in the same statement's transaction, through the
// (organization_id, id) index, so the cost of a write does not grow with the org's history.
import { sql, type OrgDb } from '@quad/core';

export const RUNS_KEPT = 500;

export interface RunInput {
  sourceKey: string;
  kind: 'crawl' | 'upload';
  startedAt: Date;
  changed: boolean;
  passages: number;
  error: string | null;
}

export interface RunView {
  id: number;
  source_key: string;
  kind: 'crawl' | 'upload';
  started_at: string;
  duration_ms: number;
  changed: boolean;
  passages: number;
  error: string | null;
}

/** Record a run (its duration is from startedAt to now) and keep the org's newest RUNS_KEPT. */
export async function recordRun(db: OrgDb, run: RunInput): Promise<void> {
  await db.run`
    with added as (
      insert into knowledge_runs (organization_id, source_key, kind, started_at, duration_ms, changed, passages, error)
      values (${db.org}, ${run.sourceKey}, ${run.kind}, ${run.startedAt}::timestamptz,
        greatest(0, (extract(epoch from clock_timestamp() - ${run.startedAt}::timestamptz) * 1000)::int), ${run.changed}, ${run.passages}, ${run.error})
      returning id)
    delete from knowledge_runs where ${db.inOrg()} and id <= (
      select id from knowledge_runs where ${db.inOrg()} order by id desc offset ${RUNS_KEPT - 1} limit 1)`;
}

/** The org's newest runs first; only failed ones with `failed`, only one source's with `key`. */
export async function listRuns(db: OrgDb, options: { limit: number; failed: boolean; key?: string }): Promise<RunView[]> {
  // At most RUNS_KEPT rows of the org: filtering them on the org's index is cheap whatever the filter.
  const rows = await db.sql<Omit<RunView, 'id' | 'started_at'> & { id: string; started_at: Date }>`
    select id, source_key, kind, started_at, duration_ms, changed, passages, error from knowledge_runs
    where ${db.inOrg()}${options.failed ? sql` and error is not null` : sql``}${options.key !== undefined ? sql` and source_key = ${options.key}` : sql``}
    order by id desc limit ${options.limit}`;
  return rows.map((r) => ({ ...r, id: Number(r.id), started_at: new Date(r.started_at).toISOString() }));
}
