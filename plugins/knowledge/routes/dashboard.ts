// Officer routes (spec "Knowledge (officer, prefix /api/dashboard/<org>/knowledge)"): the org's knowledge settings,
// its sources (list, read page by page, delete), crawl records (list, save, run, delete), the run log, reindex and
// re-embed. Uploads are in documents.ts.
import { ErrorBody, OrgParams, Type, badRequest, type RoutesPlugin } from '@quad/core';
import { knowledgeContext, settingsOf, storedOrgSettings } from '../context.js';
import { readSource } from '../reader.js';
import { subscribedBy } from '../subscriptions.js';
import { startReembed } from '../reembed.js';
import { deleteSource, listSources, sourceKey } from '../sources.js';
import { ORG_CONFIG_KEY, isPublisher, orgDefaults, resolveOrgSettings, type OrgKnowledge } from '../settings.js';
import { CrawlBody, CrawlOut, CrawlRunBody, JobStartedOut, ReadOut, ReadQuery, RunOut, SettingsBody, SettingsOut, SourceOut } from '../schemas.js';
import { deleteCrawl, listCrawls } from '../crawl/records.js';
import { startReindex } from '../crawl/jobs.js';
import { putCrawl, runCrawl } from '../crawl/requests.js';
import { listRuns, RUNS_KEPT } from '../runs.js';

const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const officer = { auth: 'officer' as const };
const KeyParams = Type.Object({ org: OrgParams.properties.org, '*': Type.String({ description: 'the source key' }) });

export default (async (app) => {
  async function settingsAnswer(em: Parameters<typeof storedOrgSettings>[1], org: NonNullable<import('fastify').FastifyRequest['org']>) {
    const ctx = await knowledgeContext(app.quad, em, org);
    // An unreadable org secret is the embedder's failure, shown on the Integrations tab: here, no embedder.
    const embedder = await ctx.embedder().catch(() => null);
    return { settings: ctx.settings, defaults: orgDefaults(ctx.deployment), embedder: embedder ? { model: embedder.model } : null };
  }

  app.get('/api/dashboard/:org/knowledge/settings', {
    config: officer,
    schema: { tags: ['knowledge'], summary: 'The org\'s knowledge settings, their defaults and its embedder', params: OrgParams, response: { 200: SettingsOut, ...Errors } },
  }, async (request) => settingsAnswer(request.em, request.org!));

  app.put('/api/dashboard/:org/knowledge/settings', {
    config: officer,
    schema: {
      tags: ['knowledge'], summary: 'Change knowledge settings (null returns one to its default); a new passage size applies when a source is indexed again',
      params: OrgParams, body: SettingsBody, response: { 200: SettingsOut, ...Errors },
    },
  }, async (request) => {
    const org = request.org!;
    const deployment = settingsOf(app.quad);
    await request.em.transactional(async (em) => {
      const stored: Partial<Record<keyof OrgKnowledge, unknown>> = { ...await storedOrgSettings(app.quad, em, org.id) };
      for (const [key, value] of Object.entries(request.body) as [keyof OrgKnowledge, unknown][]) {
        if (value === null) delete stored[key];
        else if (value !== undefined) stored[key] = value;
      }
      const effective = resolveOrgSettings(deployment, { ...stored, chunk_overlap: 0 });
      const overlap = typeof stored.chunk_overlap === 'number' ? stored.chunk_overlap : 0;
      if (overlap > Math.floor(effective.chunk_chars / 2)) {
        throw badRequest(`body.chunk_overlap: at most half of chunk_chars (${effective.chunk_chars}), so ${Math.floor(effective.chunk_chars / 2)} or less`, 'chunk_overlap_too_large', { field: 'body.chunk_overlap' });
      }
      await app.quad.orgConfig.set(em, org.id, ORG_CONFIG_KEY, Object.keys(stored).length ? stored : null);
      await request.audit(em, 'knowledge.settings', { changes: request.body });
    });
    return settingsAnswer(request.em, org);
  });

  app.get('/api/dashboard/:org/knowledge/sources', {
    config: officer,
    schema: {
      tags: ['knowledge'], summary: 'The org\'s sources with their current version, and whether the org may publish public sources', params: OrgParams,
      querystring: Type.Object({ category: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
      response: { 200: Type.Object({ sources: Type.Array(SourceOut), may_publish: Type.Boolean() }), ...Errors },
    },
  }, async (request) => ({
    sources: await listSources(request.db, request.query.category),
    may_publish: isPublisher(settingsOf(app.quad), request.org!),
  }));

  app.get('/api/dashboard/:org/knowledge/sources/*', {
    config: officer,
    schema: {
      operationId: 'getDashboardKnowledgeSourcePage', tags: ['knowledge'],
      summary: 'One source\'s text a page at a time (500 rows or 200,000 characters; summaries left out; chunk_overlap removed): the org\'s own, else the oldest public source of the key, else a shared page of a subscribed submodule',
      params: KeyParams, querystring: ReadQuery, response: { 200: ReadOut, ...Errors },
    },
  }, async (request) => {
    const key = request.query.chunk === undefined ? sourceKey(request.params['*']) : undefined;
    const ctx = await knowledgeContext(app.quad, request.em, request.org!);
    const subscribed = await subscribedBy(app.quad, request.em, request.org!.id);
    return readSource(request.db, ctx.settings.chunk_overlap, { key, chunk: request.query.chunk, offset: request.query.offset }, subscribed);
  });

  app.delete('/api/dashboard/:org/knowledge/sources/*', {
    config: officer,
    schema: { operationId: 'deleteDashboardKnowledgeSource', tags: ['knowledge'], summary: 'Delete one of the org\'s sources with its versions and chunks', params: KeyParams, response: { 200: Type.Object({ deleted: Type.String({ description: 'the key of the deleted source' }) }), ...Errors } },
  }, async (request) => deleteSource(request, sourceKey(request.params['*'])));

  app.post('/api/dashboard/:org/knowledge/reembed', {
    config: officer,
    schema: {
      tags: ['knowledge'], summary: 'Start knowledge.reembed: the org\'s passages embedded again with its current embedder, one source at a time (409 while one runs)',
      params: OrgParams, response: { 202: Type.Object({ run_id: Type.Integer() }), ...Errors, 409: ErrorBody, 429: ErrorBody },
    },
  }, async (request, reply) => {
    const started = await startReembed(request.db, app.quad);
    await request.audit(request.em, 'knowledge.reembed_started', started);
    return reply.code(202).send(started);
  });

  app.get('/api/dashboard/:org/knowledge/crawls', {
    config: officer,
    schema: { tags: ['knowledge'], summary: 'The org\'s crawl records by key, with their schedule and last error', params: OrgParams, response: { 200: Type.Object({ crawls: Type.Array(CrawlOut) }), ...Errors } },
  }, async (request) => ({ crawls: await listCrawls(request.db) }));

  app.put('/api/dashboard/:org/knowledge/crawls/*', {
    config: officer,
    schema: {
      operationId: 'putDashboardKnowledgeCrawl', tags: ['knowledge'],
      summary: 'Add (201) or change (200) a crawl: the URL crawled into the source of the key on a schedule; a new URL is crawled at once',
      params: KeyParams, body: CrawlBody, response: { 200: CrawlOut, 201: CrawlOut, ...Errors },
    },
  }, (request, reply) => putCrawl(app.quad, request, reply, request.params['*'], request.body));

  app.delete('/api/dashboard/:org/knowledge/crawls/*', {
    config: officer,
    schema: { operationId: 'deleteDashboardKnowledgeCrawl', tags: ['knowledge'], summary: 'Stop crawling a key (its source and passages stay)', params: KeyParams, response: { 200: Type.Object({ deleted: Type.String() }), ...Errors } },
  }, async (request) => {
    const key = sourceKey(request.params['*']);
    await request.db.transaction(async (tx) => {
      await deleteCrawl(tx, key);
      await request.audit(tx.em, 'knowledge.crawl_deleted', { key });
    });
    return { deleted: key };
  });

  app.post('/api/dashboard/:org/knowledge/crawls/run', {
    config: officer,
    schema: {
      tags: ['knowledge'], summary: 'Run a crawl now (202); force crawls an unchanged page and accepts a text under half of the last; 409 while one runs',
      params: OrgParams, body: CrawlRunBody, response: { 202: JobStartedOut, ...Errors, 409: ErrorBody, 429: ErrorBody },
    },
  }, (request, reply) => runCrawl(app.quad, request, reply, request.body));

  app.post('/api/dashboard/:org/knowledge/reindex', {
    config: officer,
    schema: {
      tags: ['knowledge'], summary: 'Start knowledge.reindex: every crawl of the org crawled again with force (409 while one runs)',
      params: OrgParams, response: { 202: JobStartedOut, ...Errors, 409: ErrorBody, 429: ErrorBody },
    },
  }, async (request, reply) => {
    const started = await startReindex(request.db, app.quad);
    await request.audit(request.em, 'knowledge.reindex_started', started);
    return reply.code(202).send(started);
  });

  app.get('/api/dashboard/:org/knowledge/runs', {
    config: officer,
    schema: {
      tags: ['knowledge'], summary: `The run log of crawls and uploads, newest first (the last ${RUNS_KEPT} are kept)`, params: OrgParams,
      querystring: Type.Object({
        limit: Type.Integer({ minimum: 1, maximum: RUNS_KEPT, default: 50 }),
        failed: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')], { description: '1: only runs that failed' })),
        key: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'only the runs of this source key' })),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ runs: Type.Array(RunOut) }), ...Errors },
    },
  }, async (request) => ({
    runs: await listRuns(request.db, {
      limit: request.query.limit, failed: request.query.failed === '1' || request.query.failed === 'true', key: request.query.key,
    }),
  }));
}) satisfies RoutesPlugin;
