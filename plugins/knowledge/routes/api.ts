// The machine API (spec "Knowledge (prefix /api/knowledge, machine token with the scope)"): sources, crawls and search
// for the token's org. These paths name no org: the core binds the token's org (and the module gate) for them.
import { ErrorBody, Type, notFound, type RoutesPlugin } from '@quad/core';
import { knowledgeContext } from '../context.js';
import { chunksOf, deleteSource, findSource, listSources, sourceKey, writeSource } from '../sources.js';
import { search } from '../search.js';
import { CrawlBody, CrawlOut, CrawlRunBody, JobStartedOut, SearchBody, SearchOut, SourceBody, SourceOut, SourceWithChunksOut, WildcardParams } from '../schemas.js';
import { putCrawl, runCrawl } from '../crawl/requests.js';

const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export default (async (app) => {
  app.get('/api/knowledge/sources', {
    config: { auth: 'machine:knowledge:read' },
    schema: {
      tags: ['knowledge'], summary: 'The token\'s org\'s sources with their current version',
      querystring: Type.Object({ category: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
      response: { 200: Type.Object({ sources: Type.Array(SourceOut) }), ...Errors },
    },
  }, async (request) => ({ sources: await listSources(request.db, request.query.category) }));

  app.get('/api/knowledge/sources/*', {
    config: { auth: 'machine:knowledge:read' },
    schema: {
      operationId: 'getKnowledgeSource', tags: ['knowledge'], summary: 'One source of the token\'s org, with its chunks (no vectors)', params: WildcardParams,
      response: { 200: SourceWithChunksOut, ...Errors },
    },
  }, async (request) => {
    const key = sourceKey(request.params['*']);
    const found = await findSource(request.db, key);
    if (!found) throw notFound(`No source "${key}"`, 'source_not_found');
    const { id: _id, version_id, ...source } = found;
    return { ...source, chunks: version_id === null ? [] : await chunksOf(request.db, version_id) };
  });

  app.put('/api/knowledge/sources/*', {
    config: { auth: 'machine:knowledge:write' },
    // 5000 chunks of 1024 numbers each: the largest body the spec allows is tens of megabytes.
    bodyLimit: 110 * 1024 * 1024,
    schema: {
      operationId: 'putKnowledgeSource', tags: ['knowledge'],
      summary: 'Create or replace a source: 201 when its content changed (a new version replaces the old one and its chunks), 200 when not (only title, url, category and public change)',
      params: WildcardParams, body: SourceBody,
      response: { 200: SourceOut, 201: SourceOut, ...Errors, 409: ErrorBody, 429: ErrorBody, 502: ErrorBody },
    },
  }, async (request, reply) => {
    const key = sourceKey(request.params['*']);
    const ctx = await knowledgeContext(app.quad, request.em, request.org!);
    const { source, changed } = await writeSource(ctx, key, request.body);
    return reply.code(changed ? 201 : 200).send(source);
  });

  app.delete('/api/knowledge/sources/*', {
    config: { auth: 'machine:knowledge:write' },
    schema: { operationId: 'deleteKnowledgeSource', tags: ['knowledge'], summary: 'Delete a source with its versions and chunks', params: WildcardParams, response: { 200: Type.Object({ deleted: Type.String({ description: 'the key of the deleted source' }) }), ...Errors } },
  }, async (request) => deleteSource(request, sourceKey(request.params['*'])));

  app.post('/api/knowledge/search', {
    config: { auth: 'machine:knowledge:read' },
    schema: {
      tags: ['knowledge'], summary: 'Ranked passages of the org\'s sources, public sources and subscribed submodules (not audited)',
      body: SearchBody, response: { 200: SearchOut, ...Errors },
    },
  }, async (request) => search(await knowledgeContext(app.quad, request.em, request.org!), request.body));

  app.put('/api/knowledge/crawls/*', {
    config: { auth: 'machine:knowledge:write' },
    schema: {
      operationId: 'putKnowledgeCrawl', tags: ['knowledge'],
      summary: 'Create (201) or change (200) the crawl record of a source key: the URL crawled into it on a schedule (fetch_every_hours 1 to 720, default 24); a new URL is crawled at once',
      params: WildcardParams, body: CrawlBody, response: { 200: CrawlOut, 201: CrawlOut, ...Errors },
    },
  }, (request, reply) => putCrawl(app.quad, request, reply, request.params['*'], request.body));

  app.post('/api/knowledge/crawls/run', {
    config: { auth: 'machine:knowledge:write' },
    schema: {
      tags: ['knowledge'], summary: 'Start a crawl of one source now (202); force crawls an unchanged page and accepts a text under half of the last; 409 while one runs',
      body: CrawlRunBody, response: { 202: JobStartedOut, ...Errors, 409: ErrorBody, 429: ErrorBody },
    },
  }, (request, reply) => runCrawl(app.quad, request, reply, request.body));
}) satisfies RoutesPlugin;
