// Officer routes (spec "Knowledge (officer, prefix /api/dashboard/<org>/knowledge)"): the org's knowledge settings,
// its sources (list, read page by page, delete). Documents, runs, reindex and reembed belong to later issues.
import { ErrorBody, OrgParams, Type, badRequest, type RoutesPlugin } from '@quad/core';
import { knowledgeContext, settingsOf, storedOrgSettings } from '../context.js';
import { readSource } from '../reader.js';
import { startReembed } from '../reembed.js';
import { deleteSource, listSources, sourceKey } from '../sources.js';
import { ORG_CONFIG_KEY, isPublisher, orgDefaults, resolveOrgSettings, type OrgKnowledge } from '../settings.js';
import { ReadOut, ReadQuery, SettingsBody, SettingsOut, SourceOut } from '../schemas.js';

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
    sources: await listSources(request.em, request.org!.id, request.query.category),
    may_publish: isPublisher(settingsOf(app.quad), request.org!),
  }));

  app.get('/api/dashboard/:org/knowledge/sources/*', {
    config: officer,
    schema: {
      operationId: 'getDashboardKnowledgeSourcePage', tags: ['knowledge'],
      summary: 'One source\'s text a page at a time (500 rows or 200,000 characters; summaries left out; chunk_overlap removed): the org\'s own, else the oldest public source of the key',
      params: KeyParams, querystring: ReadQuery, response: { 200: ReadOut, ...Errors },
    },
  }, async (request) => {
    const key = request.query.chunk === undefined ? sourceKey(request.params['*']) : undefined;
    const ctx = await knowledgeContext(app.quad, request.em, request.org!);
    return readSource(request.em, request.org!.id, ctx.settings.chunk_overlap, { key, chunk: request.query.chunk, offset: request.query.offset });
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
    const started = await startReembed(request.em, request.org!.id, app.quad);
    await request.audit(request.em, 'knowledge.reembed_started', started);
    return reply.code(202).send(started);
  });
}) satisfies RoutesPlugin;
