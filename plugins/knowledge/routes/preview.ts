// The officer's test search (dashboard Knowledge page): POST /api/dashboard/<org>/knowledge/search runs the same
// search as POST /api/knowledge/search (embeddings count against knowledge.embeddings_per_day; not audited), with
// an optional mode in place of the org's, and answers the two ranked lists the fusion merged besides the results.
import { ErrorBody, OrgParams, Type, type RoutesPlugin } from '@quad/core';
import { knowledgeContext } from '../context.js';
import { search } from '../search.js';
import { MODES } from '../settings.js';
import { SearchOut } from '../schemas.js';

const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const PreviewBody = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 2000 }),
  category: Type.Optional(Type.String({ maxLength: 200 })),
  top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'default: the org setting' })),
  window: Type.Optional(Type.Integer({ minimum: 0, maximum: 5, description: 'default: the org setting' })),
  mode: Type.Optional(Type.Union(MODES.map((m) => Type.Literal(m)), { description: 'default: the org setting' })),
}, { additionalProperties: false });

/** A passage of a ranked list, named so the page can show it without the fused results. */
const Hit = { chunk_id: Type.Integer(), rank: Type.Integer({ description: 'from 1' }), source_key: Type.String(), ordinal: Type.Integer() };

const PreviewOut = Type.Composite([SearchOut, Type.Object({
  vector: Type.Array(Type.Object({ ...Hit, distance: Type.Number({ description: 'cosine distance' }) }), { description: 'the vector search\'s list (empty when it did not run)' }),
  text: Type.Array(Type.Object(Hit), { description: 'the full-text search\'s list' }),
})]);

export default (async (app) => {
  app.post('/api/dashboard/:org/knowledge/search', {
    config: { auth: 'officer' },
    schema: {
      tags: ['knowledge'], summary: 'Test search: the results, and the vector and text lists reciprocal rank fusion merged (not audited)',
      params: OrgParams, body: PreviewBody, response: { 200: PreviewOut, ...Errors },
    },
  }, async (request) => {
    const { mode, ...input } = request.body;
    const ctx = await knowledgeContext(app.quad, request.em, request.org!);
    const answer = await search(mode ? { ...ctx, settings: { ...ctx.settings, mode } } : ctx, input, { explain: true });
    return {
      results: answer.results, dense: answer.dense, mode: answer.mode,
      vector: answer.explain.vector,
      text: answer.explain.text,
    };
  });
}) satisfies RoutesPlugin;
