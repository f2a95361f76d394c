// agents.prune (spec "Agent data"): conversations with no update for AGENT_RETENTION_DAYS go with their messages and
// summaries; pending actions go one day after they expire; expired memories go. A daily cron of no org, so it
// deletes across orgs (services.acrossOrgs, as `agents.prune`), in batches through the indexes on the times: each
// batch is a cross-org transaction of its own, so a large backlog never holds one long transaction.
import { defineJob, type AcrossOrgsDb, type CoreServices } from '@quad/core';
import { MODULE } from './settings.js';
import type { AgentsSettings } from './settings.js';

export const PRUNE_JOB = 'agents.prune';
const REASON = 'agents.prune';
const BATCH = 5000;

/** Deletes up to `limit` rows across orgs; how many it deleted. */
type DeleteBatch = (all: AcrossOrgsDb, limit: number) => Promise<number>;

async function inBatches(services: Pick<CoreServices, 'acrossOrgs'>, deleteBatch: DeleteBatch): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await services.acrossOrgs(REASON, (all) => deleteBatch(all, BATCH));
    total += deleted;
    if (deleted < BATCH) return total;
  }
}

export async function prune(services: Pick<CoreServices, 'acrossOrgs'>, retentionDays: number) {
  const conversations = await inBatches(services, (all, limit) => all.run`
    delete from agents_conversations where id in (
      select id from agents_conversations where updated_at < now() - make_interval(days => ${retentionDays}::int) limit ${limit}::int)`);
  const pending = await inBatches(services, (all, limit) => all.run`
    delete from agents_pending where id in (
      select id from agents_pending where expires_at < now() - interval '1 day' limit ${limit}::int)`);
  const memories = await inBatches(services, (all, limit) => all.run`
    delete from agents_memories where id in (
      select id from agents_memories where expires_at < now() limit ${limit}::int)`);
  return { conversations, pending, memories };
}

export const pruneJob = defineJob({
  name: PRUNE_JOB,
  description: 'Deletes conversations idle past AGENT_RETENTION_DAYS, pending actions a day after they expired, and expired memories',
  cron: '23 4 * * *',
  maxAttempts: 2,
  async handler({ services, log }) {
    const settings = services.moduleSettings<AgentsSettings>(MODULE);
    log.info(await prune(services, settings.AGENT_RETENTION_DAYS), 'agents.prune: deleted');
  },
});
