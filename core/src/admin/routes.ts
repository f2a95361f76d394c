// Superadmin routes (spec: "Superadmin routes"): orgs, officer roles, server roles, publishers, health, and the
// audit and error logs of every org. Everyone not in SYS_ADMIN gets 403; all answer 503 while the bot is down.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Organization, type OrganizationEntity } from '../entities/organization.js';
import { AuditEntry, ErrorEntry } from '../entities/logs.js';
import { ErrorBody, OrgParams, OrgRef, pageOf, pageWindow, pagingQuery } from '../http/schemas.js';
import { createOrg, removeOrg, serverRoles, setOfficerRole } from '../orgs/org-admin.js';
import { HealthSampler } from './health.js';

const OrgView = Type.Object({
  id: Type.Integer(), prefix: Type.String(), name: Type.String(), description: Type.String(),
  guild_id: Type.Union([Type.String(), Type.Null()]), officer_role_id: Type.Union([Type.String(), Type.Null()]),
  publisher: Type.Boolean(), modules: Type.Record(Type.String(), Type.Boolean()), created_at: Type.String(),
});
const orgView = (o: OrganizationEntity) => ({
  id: o.id, prefix: o.prefix, name: o.name, description: o.description, guild_id: o.discordGuildId ?? null,
  officer_role_id: o.officerRoleId ?? null, publisher: o.publisher, modules: o.modules, created_at: o.createdAt.toISOString(),
});
const LogQuery = Type.Object({ ...pagingQuery(), org: Type.Optional(OrgRef) });

export const adminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { registry, discord } = app.quad;
  const health = new HealthSampler(app.quad.orm, app.auth.bot, app.quad.settings.DATA_DIR);
  const auth = 'superadmin' as const;
  const actor = (request: { caller: { actor: string } | null }) => request.caller!.actor;

  app.get('/api/superadmin/orgs', {
    config: { auth }, schema: { tags: ['superadmin'], summary: 'Every org', response: { 200: Type.Object({ orgs: Type.Array(OrgView) }) } },
  }, async (request) => ({ orgs: (await request.em.find(Organization, {}, { orderBy: { prefix: 'asc' } })).map(orgView) }));

  app.post('/api/superadmin/orgs', {
    config: { auth },
    schema: {
      tags: ['superadmin'], summary: 'Add an org for a Discord server the bot is in (409 if the server already has one)',
      body: Type.Object({
        prefix: Type.String({ minLength: 2, maxLength: 32 }), name: Type.String({ minLength: 1, maxLength: 100 }),
        guild_id: Type.String({ pattern: '^\\d{1,20}$' }), officer_role_id: Type.Optional(Type.String({ pattern: '^\\d{1,20}$' })),
        description: Type.Optional(Type.String({ maxLength: 2000 })),
      }, { additionalProperties: false }),
      response: { 201: OrgView, 400: ErrorBody, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const b = request.body;
    // No org yet to bind to: made, with its audit row, on the cross-org path.
    const org = await app.quad.acrossOrgs('core.superadmin', ({ em }) => createOrg(em, registry, discord, { prefix: b.prefix, name: b.name, guildId: b.guild_id, officerRoleId: b.officer_role_id, description: b.description }, actor(request)));
    return reply.code(201).send(orgView(org));
  });

  app.delete('/api/superadmin/orgs/:org', {
    config: { auth },
    schema: { tags: ['superadmin'], summary: 'Remove an org and all its data (one transaction)', params: OrgParams, response: { 200: Type.Object({ removed: Type.String() }), 404: ErrorBody } },
  }, async (request) => {
    const orgId = request.org!.id;
    // Its audit row outlives it, as a row of no org.
    const { prefix } = await app.quad.acrossOrgs('core.superadmin', ({ em }) => removeOrg(em, orgId, actor(request)));
    app.orgs.invalidate(orgId);
    return { removed: prefix };
  });

  app.get('/api/superadmin/orgs/:org/roles', {
    config: { auth },
    schema: {
      tags: ['superadmin'], summary: 'The roles of the org\'s server, to choose the officer role', params: OrgParams,
      response: { 200: Type.Object({ roles: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), position: Type.Integer(), officer: Type.Boolean() })) }), 400: ErrorBody },
    },
  }, async (request) => {
    const org = request.org!;
    if (!org.discordGuildId) return { roles: [] };
    const roles = await serverRoles(discord, org.discordGuildId);
    return { roles: roles.map((r) => ({ id: r.id, name: r.name, position: r.position, officer: r.id === org.officerRoleId })) };
  });

  app.put('/api/superadmin/orgs/:org/officer-role', {
    config: { auth },
    schema: {
      tags: ['superadmin'], summary: 'Set (or clear with null) the officer role', params: OrgParams,
      body: Type.Object({ role_id: Type.Union([Type.String({ pattern: '^\\d{1,20}$' }), Type.Null()]) }, { additionalProperties: false }),
      response: { 200: OrgView, 400: ErrorBody },
    },
  }, async (request) => {
    const org = await setOfficerRole(request.em, discord, request.org!.id, request.body.role_id, actor(request));
    app.orgs.invalidate(org.id);
    return orgView(org);
  });

  app.get('/api/superadmin/guilds', {
    config: { auth },
    schema: {
      tags: ['superadmin'], summary: 'Servers the bot is in, with the org bound to each',
      response: { 200: Type.Object({ guilds: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), org: Type.Union([Type.String(), Type.Null()]) })) }) },
    },
  }, async (request) => {
    const [guilds, orgs] = await Promise.all([discord.botGuilds(), request.em.find(Organization, { discordGuildId: { $ne: null } })]);
    const byGuild = new Map(orgs.map((o) => [o.discordGuildId, o.prefix]));
    return { guilds: guilds.map((g) => ({ id: g.id, name: g.name, org: byGuild.get(g.id) ?? null })) };
  });

  app.put('/api/superadmin/publishers/:org', {
    config: { auth },
    schema: {
      tags: ['superadmin'], summary: 'Allow or stop an org publishing shared content', params: OrgParams,
      body: Type.Object({ publisher: Type.Boolean() }, { additionalProperties: false }),
      response: { 200: OrgView, 400: ErrorBody },
    },
  }, async (request) => {
    const org = await request.em.transactional(async (em) => {
      const found = await em.findOneOrFail(Organization, { id: request.org!.id });
      found.publisher = request.body.publisher;
      await em.flush();
      await request.audit(em, 'org.publisher', { publisher: found.publisher });
      return found;
    });
    app.orgs.invalidate(org.id);
    return orgView(org);
  });

  app.get('/api/superadmin/health', {
    config: { auth },
    schema: { tags: ['superadmin'], summary: 'Load, memory, disk, database size, container memory, job queue and bot; sampled every 30 s' },
  }, async () => health.sample());

  /** One org's rows, or every org's (and those of no org): read on the cross-org path. */
  const orgScope = async (request: { query: { org?: string } }) => {
    if (!request.query.org) return { where: {}, options: { filters: { org: false } } };
    const org = await app.orgs.find(request.query.org);
    return { where: { organization: org?.id ?? -1 }, options: { filters: { org: false } } };
  };

  app.get('/api/superadmin/audit', {
    config: { auth },
    schema: {
      tags: ['superadmin'], summary: 'The audit log of every org, newest first', querystring: LogQuery,
      response: { 200: pageOf('items', Type.Object({ id: Type.Integer(), org_id: Type.Union([Type.Integer(), Type.Null()]), actor: Type.String(), action: Type.String(), details: Type.Record(Type.String(), Type.Unknown()), created_at: Type.String() })) },
    },
  }, async (request) => {
    const { page, per_page } = request.query;
    const scope = await orgScope(request);
    const [rows, total] = await app.quad.acrossOrgs('core.superadmin', ({ em }) => em.findAndCount(AuditEntry, scope.where, { ...scope.options, orderBy: { id: 'desc' }, ...pageWindow(request.query) }));
    return {
      items: rows.map((r) => ({ id: r.id, org_id: r.organization?.id ?? null, actor: r.actor, action: r.action, details: r.details, created_at: r.createdAt.toISOString() })),
      page, per_page, total,
    };
  });

  app.get('/api/superadmin/errors', {
    config: { auth },
    schema: {
      tags: ['superadmin'], summary: 'Every error of every org, newest first', querystring: LogQuery,
      response: {
        200: pageOf('items', Type.Object({
          id: Type.Integer(), org_id: Type.Union([Type.Integer(), Type.Null()]), source: Type.String(), origin: Type.String(),
          request_id: Type.Union([Type.String(), Type.Null()]), message: Type.String(), log_line: Type.String(), host: Type.String(),
          release: Type.String(), stack: Type.Union([Type.String(), Type.Null()]), created_at: Type.String(),
        })),
      },
    },
  }, async (request) => {
    const { page, per_page } = request.query;
    const scope = await orgScope(request);
    const [rows, total] = await app.quad.acrossOrgs('core.superadmin', ({ em }) => em.findAndCount(ErrorEntry, scope.where, { ...scope.options, orderBy: { id: 'desc' }, ...pageWindow(request.query) }));
    return {
      items: rows.map((r) => ({
        id: r.id, org_id: r.organization?.id ?? null, source: r.source, origin: r.origin, request_id: r.requestId ?? null, message: r.message,
        log_line: r.logLine, host: r.host, release: r.release, stack: r.stack ?? null, created_at: r.createdAt.toISOString(),
      })),
      page, per_page, total,
    };
  });
};
