// The job submodules.index_result (spec "Live query rules", "Events"): a live query's answer becomes the org's own
// knowledge source `<submodule>-live/<query>-<hash of the parameters>` through the knowledge module's
// `knowledge.org_sources` — never a shared page. The knowledge module skips a text equal to the current version, so
// asking the same again writes nothing. Skipped when the knowledge module is not loaded or is off for the org.
import { createHash } from 'node:crypto';
import { defineJob, Type } from '@quad/core';
import { catalogOf } from './catalog.js';
import { knowledgeOn, orgSources } from './knowledge-link.js';

export const INDEX_RESULT_JOB = 'submodules.index_result';

/** A stable hash of the parameters (names sorted): the same question always lands on the same source. */
export function paramsHash(params: Record<string, string>): string {
  const sorted = Object.keys(params).sort().map((k) => [k, params[k]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 12);
}

export const liveSourceKey = (submodule: string, query: string, params: Record<string, string>) => `${submodule}-live/${query}-${paramsHash(params)}`;

export const indexResultJob = defineJob({
  name: INDEX_RESULT_JOB,
  description: 'Writes a live query\'s answer into the org\'s knowledge as the source <submodule>-live/<query>-<hash>; unchanged answers write nothing',
  payload: Type.Object({
    submodule: Type.String({ minLength: 1, maxLength: 100 }),
    query: Type.String({ minLength: 1, maxLength: 100 }),
    params: Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 1000 })),
    text: Type.String({ maxLength: 1_000_000 }),
    url: Type.String({ maxLength: 4000 }),
  }, { additionalProperties: false }),
  // A knowledge limit (409/429) is not retried; an embedder failing (502) is, a few times.
  maxAttempts: 3,
  async handler({ em, org, payload, services, log }) {
    const writer = orgSources(services);
    if (!org || !writer || !knowledgeOn(services, org.modules)) {
      log.info({ submodule: payload.submodule, query: payload.query }, 'submodules.index_result skipped: knowledge is not on for the org');
      return;
    }
    const submodule = (await catalogOf(services)).get(payload.submodule);
    const query = submodule?.queries.find((q) => q.name === payload.query);
    const described = Object.entries(payload.params).map(([k, v]) => `${k}: ${v}`).join(', ');
    const key = liveSourceKey(payload.submodule, payload.query, payload.params);
    try {
      const { changed } = await writer.writeText(em, org.id, {
        key,
        title: `${submodule?.title ?? payload.submodule}: ${query?.title ?? payload.query}${described ? ` (${described})` : ''}`,
        url: payload.url,
        category: `${payload.submodule}-live`,
        text: payload.text,
      });
      log.info({ key, changed }, changed ? 'live query answer indexed' : 'live query answer unchanged');
    } catch (err) {
      const status = (err as { statusCode?: unknown }).statusCode;
      if (status === 409 || status === 429) {
        log.warn({ key, status, err: (err as Error).message }, 'live query answer not indexed: a knowledge limit is reached');
        return;
      }
      throw err;
    }
  },
});
