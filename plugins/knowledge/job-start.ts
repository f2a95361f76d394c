// Jobs that an officer or a token starts (crawl, reindex, re-embed) count against knowledge.jobs_per_day in the
// same transaction as the start, so a refused start (409 while one runs, 429 over the day) counts nothing.
import type { CoreServices, OrgDb } from '@quad/core';

const JOBS_LIMIT = 'knowledge.jobs_per_day';

export async function startCountedJob(
  db: OrgDb, services: CoreServices, job: string, payload: Record<string, unknown>,
  check?: (tx: OrgDb) => Promise<void>,
): Promise<{ run_id: number }> {
  return db.transaction(async (tx) => {
    await check?.(tx);
    await services.limits.consume(tx.em, tx.org, JOBS_LIMIT, 1);
    const { runId } = await services.startJob(tx.em, job, payload, { orgId: tx.org });
    return { run_id: runId };
  });
}
