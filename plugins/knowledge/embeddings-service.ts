// The service `knowledge.embeddings`: the org's embedder (its own `embeddings` integration, else EMBEDDINGS_URL) for
// other modules — the agents module embeds profile nodes with it — counted against knowledge.embeddings_per_day like
// the module's own embeddings, so one limit covers everything embedded for the org.
import { defineService, type CoreServices, type EntityManager } from '@quad/core';
import { settingsOf } from './context.js';
import { embedderForOrg } from './embeddings.js';

const EMBEDDINGS_LIMIT = 'knowledge.embeddings_per_day';

export interface OrgEmbeddings {
  /**
   * 1024-number vectors of `texts` in order, with the model that made them; null when the org has no embedder or the
   * database has no pgvector. 429 over knowledge.embeddings_per_day (checked before the service is called; counted
   * after it answers). Throws EmbedderFailed (a message for officers) when the service fails.
   */
  embed(em: EntityManager, orgId: number, texts: string[], kind: 'query' | 'passage'): Promise<{ model: string; vectors: number[][] } | null>;
}

export const orgEmbeddings = defineService<OrgEmbeddings>({
  id: 'knowledge.embeddings',
  methods: ['embed'],
  description: 'The org\'s embedder for other modules, counted against knowledge.embeddings_per_day',
});

export function orgEmbeddingsFor(services: CoreServices): OrgEmbeddings {
  return {
    async embed(em, orgId, texts, kind) {
      if (services.extensions.vector !== true) return null;
      const embedder = await embedderForOrg({ settings: settingsOf(services), secrets: services.secrets, em, orgId });
      if (!embedder) return null;
      if (!texts.length) return { model: embedder.model, vectors: [] };
      await services.limits.checkRate(em, orgId, EMBEDDINGS_LIMIT, texts.length);
      const vectors = await embedder.embed(texts, kind);
      await services.limits.consume(em, orgId, EMBEDDINGS_LIMIT, texts.length);
      return { model: embedder.model, vectors };
    },
  };
}
