// agents.prune (spec "Agent data"): conversations with no update for AGENT_RETENTION_DAYS go with their messages and
// summaries; pending actions go one day after they expire; expired memories go. Deletes run in batches through the
// indexes on the times, so a large backlog never holds one long transaction.
import { defineJob, type EntityManager } from '@quad/core';
import { MODULE } from './settings.js';
import type { AgentsSettings } from './settings.js';

export const PRUNE_JOB = 'agents.prune';
const BATCH = 5000;

async function inBatches(em: EntityManager, sql: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await em.execute(sql, [...params, BATCH]);
    total += rows.length;
    if (rows.length < BATCH) return total;
  }
}

export async function prune(em: EntityManager, retentionDays: number) {
  const conversations = await inBatches(em,
    `delete from agents_conversations where id in (
       select id from agents_conversations where updated_at < now() - make_interval(days => ?) limit ?) returning id`, [retentionDays]);
  const pending = await inBatches(em,
    `delete from agents_pending where id in (
       select id from agents_pending where expires_at < now() - interval '1 day' limit ?) returning id`, []);
  const memories = await inBatches(em,
    `delete from agents_memories where id in (
       select id from agents_memories where expires_at < now() limit ?) returning id`, []);
  return { conversations, pending, memories };
}

export const pruneJob = defineJob({
  name: PRUNE_JOB,
  description: 'Deletes conversations idle past AGENT_RETENTION_DAYS, pending actions a day after they expired, and expired memories',
  cron: '23 4 * * *',
  maxAttempts: 2,
  async handler({ em, services, log }) {
    const settings = services.moduleSettings<AgentsSettings>(MODULE);
    log.info(await prune(em, settings.AGENT_RETENTION_DAYS), 'agents.prune: deleted');
  },
});
