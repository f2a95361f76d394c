// knowledge.reembed (spec "Events"; document 3 "Embeddings"): embed the stored text of the org's passages again
// with the org's current embedder, so that vector search finds passages written under another model or with no
// vector. One source per transaction: a source whose embedding fails keeps its old vectors and the job goes on;
// a source replaced meanwhile is left to its new version. One run at a time per org (a second start is 409).
import { defineJob, type CoreServices, type OrgDb, type OrgSnapshot } from '@quad/core';
import type { FastifyBaseLogger } from 'fastify';
import { knowledgeContext } from './context.js';
import { startCountedJob } from './job-start.js';
import { vectorLiteral, type Embedder } from './embeddings.js';

export const REEMBED_JOB = 'knowledge.reembed';
const EMBEDDINGS_LIMIT = 'knowledge.embeddings_per_day';

interface Stale { source_id: number; key: string; version_id: string; passages: number }

/** The org's sources whose current version has passages the embedder's model has not embedded (or none has). */
export async function staleSources(db: OrgDb, model: string): Promise<Stale[]> {
  return db.sql<Stale>`
    select s.id as source_id, s.key, v.id as version_id, count(*)::int as passages
    from knowledge_sources s join knowledge_versions v on v.id = s.current_version_id
    join knowledge_chunks c on c.version_id = v.id
    where ${db.inOrg('s')} and (c.embedding_model is distinct from ${model}::text or c.embedding is null)
    group by s.id, s.key, v.id order by s.id`;
}

export interface ReembedOutcome { sources: number; embedded: number; failed: { key: string; error: string }[]; limited: boolean }

/** Re-embed every stale source of the org; never throws for one source's failure (see the outcome). */
export async function reembed(db: OrgDb, org: OrgSnapshot, services: CoreServices, log: FastifyBaseLogger): Promise<ReembedOutcome | null> {
  const ctx = await knowledgeContext(services, db.em, org);
  if (!ctx.vectors) return null;
  const embedder = await ctx.embedder();
  if (!embedder) return null;
  const outcome: ReembedOutcome = { sources: 0, embedded: 0, failed: [], limited: false };
  for (const source of await staleSources(db, embedder.model)) {
    outcome.sources++;
    try {
      // Over the day's embeddings the rest waits for another run (a 429 from the limits engine).
      await services.limits.checkRate(db.em, db.org, EMBEDDINGS_LIMIT, source.passages);
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode !== 429) throw err;
      outcome.limited = true;
      break;
    }
    try {
      outcome.embedded += await reembedSource(db, services, embedder, source);
    } catch (err) {
      log.warn({ err, key: source.key }, 'knowledge.reembed: a source keeps its old vectors');
      outcome.failed.push({ key: source.key, error: (err as Error).message });
    }
  }
  return outcome;
}

/** One source: its passages' text embedded outside the transaction, written in one; 0 when it was replaced meanwhile. */
async function reembedSource(db: OrgDb, services: CoreServices, embedder: Embedder, source: Stale): Promise<number> {
  const chunks = await db.sql<{ id: string; content: string }>`
    select id, content from knowledge_chunks where ${db.inOrg()} and version_id = ${source.version_id} order by ordinal`;
  const vectors = await embedder.embed(chunks.map((c) => c.content), 'passage');
  return db.transaction(async (tx) => {
    const current = await tx.one`
      select 1 from knowledge_sources where ${tx.inOrg()} and id = ${source.source_id} and current_version_id = ${source.version_id} for update`;
    if (!current) return 0;
    const rows = chunks.map((c, i) => ({ id: c.id, embedding: vectorLiteral(vectors[i]) }));
    await tx.run`
      update knowledge_chunks c set embedding = r.embedding::vector, embedding_model = ${embedder.model}
      from json_to_recordset(${JSON.stringify(rows)}::json) as r(id bigint, embedding text)
      where ${tx.inOrg('c')} and c.id = r.id and c.version_id = ${source.version_id}`;
    await tx.run`update knowledge_versions set embedding_model = ${embedder.model} where ${tx.inOrg()} and id = ${source.version_id}`;
    await services.limits.consume(tx.em, tx.org, EMBEDDINGS_LIMIT, chunks.length);
    return chunks.length;
  });
}

export const reembedJob = defineJob({
  name: REEMBED_JOB,
  description: 'Embeds the stored text of the org\'s passages again with its current embedder, one source per transaction',
  once: 'org',
  // A second attempt redoes only what is still stale (the sources that failed, or waited for the day's limit).
  maxAttempts: 3,
  async handler({ db, org, services, log }) {
    const outcome = await reembed(db, org!, services, log);
    if (!outcome) {
      log.info('knowledge.reembed: no embedder or no pgvector; nothing to embed');
      return;
    }
    log.info({ ...outcome, failed: outcome.failed.length }, 'knowledge.reembed: done');
    if (outcome.failed.length || outcome.limited) {
      const first = outcome.failed[0];
      throw new Error(outcome.limited
        ? `the day's embeddings limit (${EMBEDDINGS_LIMIT}) was reached; the sources left keep their vectors until a later run`
        : `${outcome.failed.length} of ${outcome.sources} sources could not be embedded again and keep their old vectors (first: ${first.key}: ${first.error})`);
    }
  },
});

/** Start a re-embed of the org (an officer's or a token's), counted against knowledge.jobs_per_day. */
export const startReembed = (db: OrgDb, services: CoreServices) => startCountedJob(db, services, REEMBED_JOB, {});
