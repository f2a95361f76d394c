// Limits routes (spec document 1, "Limits" and "Superadmin routes"): an org's limits for its officers, every
// org's limits for the superadmin, and the superadmin's overrides.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchemaCompiler } from 'fastify';
import { Organization } from '../entities/organization.js';
import type { Registry } from '../modules/registry.js';
import type { OfficerCaller } from '../auth/callers.js';
import { ErrorBody, OrgParams } from '../http/schemas.js';
import { MAX_LIMIT } from './engine.js';

const Nullable = <T extends ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);

export const LimitEntry = Type.Object({
  key: Type.String({ description: '`<module>.<name>`, e.g. `knowledge.sources`' }),
  module: Type.String(),
  kind: Type.Union([Type.Literal('count'), Type.Literal('rate')], { description: 'count: 409 over it; rate: 429 over it' }),
  window: Type.Union([Type.Literal('minute'), Type.Literal('hour'), Type.Literal('day'), Type.Null()], { description: 'rates: the UTC window' }),
  value: Nullable(Type.Integer({ description: 'the value in force; null: no limit' })),
  source: Type.Union([Type.Literal('override'), Type.Literal('setting'), Type.Literal('default')], { description: 'where the value comes from' }),
  default: Nullable(Type.Integer({ description: 'the module\'s default' })),
  use: Type.Integer({ description: 'counts: how many the org has; rates: use in the current window' }),
  paid_by: Type.Union([Type.Literal('org'), Type.Literal('metered'), Type.Literal('shared')], { description: 'who pays: org (own data), metered (a shared service), shared' }),
  integrations: Type.Array(Type.String(), { description: 'integrations whose deployment default this limit meters' }),
  description: Type.String(),
  resets_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'rates: when the current window ends' }),
  near_limit: Type.Boolean({ description: 'use is at least 80 % of the value' }),
});

const OrgSummary = Type.Object({ id: Type.Integer(), prefix: Type.String() });
const Overrides = Type.Record(Type.String(), Nullable(Type.Integer()), { description: 'the org\'s overrides by key; null: no limit' });
const OverrideChange = Type.Union([Type.Integer(), Type.Null(), Type.Literal('default')]);

const OverridesBody = Type.Record(
  Type.String({ description: 'a limit key' }),
  Type.Union([Type.Integer({ minimum: 0, maximum: MAX_LIMIT }), Type.Null(), Type.Literal('default')]),
  { description: 'Per key: a whole number sets the override, null sets "no limit", "default" removes the override. All or nothing.' },
);

const OrgLimits = Type.Object({ org: OrgSummary, limits: Type.Array(LimitEntry) });
const OrgLimitsWithOverrides = Type.Object({ org: OrgSummary, overrides: Overrides, limits: Type.Array(LimitEntry) });

/** Why an overrides body is refused (the first problem), or null. */
export function overridesProblem(registry: Registry, body: unknown): { instancePath: string; message: string } | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    return { instancePath: '', message: 'must be an object of limit keys to a whole number, null or "default"' };
  }
  for (const [key, value] of Object.entries(body)) {
    if (!registry.limits.has(key)) return { instancePath: `/${key}`, message: 'is not a limit of any loaded module' };
    const ok = value === null || value === 'default' || (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_LIMIT);
    if (!ok) return { instancePath: `/${key}`, message: `must be a whole number from 0 to ${MAX_LIMIT}, null (no limit) or "default" (got ${JSON.stringify(value)})` };
  }
  return null;
}

/**
 * The app's validator coerces (`true` → 1, `null` → 0 in an integer-or-null union), which would turn "no limit"
 * into 0: this route checks its body itself, without coercion, and reports like any validation error. Its params
 * go through the app's validator like every route's.
 */
function strictOverridesValidator(registry: Registry, appCompiler: FastifySchemaCompiler<unknown>): FastifySchemaCompiler<unknown> {
  return (route) => {
    if (route.httpPart !== 'body') return appCompiler(route);
    return (data: unknown) => {
      const problem = overridesProblem(registry, data);
      if (!problem) return { value: data };
      return { error: [{ keyword: 'limits', instancePath: problem.instancePath, schemaPath: '#', params: {}, message: problem.message }] as never };
    };
  };
}

export const limitsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { limits, registry } = app.quad;

  app.get('/api/organizations/:org/limits', {
    config: { auth: 'officer' },
    schema: {
      tags: ['limits'], summary: 'The limits of the modules that are on for the org, with the org\'s use', 
      params: OrgParams,
      response: { 200: OrgLimits, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
    },
  }, async (request) => {
    const org = request.org!;
    return { org: { id: org.id, prefix: org.prefix }, limits: await limits.report(request.em, org) };
  });

  app.get('/api/superadmin/limits', {
    config: { auth: 'superadmin' },
    schema: {
      tags: ['limits', 'superadmin'], summary: 'Every org with its limits, use and overrides; limits at 80 % of their value or more are marked', 
      response: {
        200: Type.Object({
          orgs: Type.Array(Type.Object({
            id: Type.Integer(), prefix: Type.String(), name: Type.String(),
            near_limit: Type.Boolean({ description: 'some limit is at 80 % of its value or more' }),
            overrides: Overrides,
            limits: Type.Array(LimitEntry),
          })),
        }),
        401: ErrorBody, 403: ErrorBody,
      },
    },
  }, async (request) => {
    const { orgs, rows, all } = await app.quad.acrossOrgs('limits.superadmin_report', async (all) => ({
      orgs: await all.em.find(Organization, {}, { orderBy: { id: 'asc' } }),
      rows: await all.sql<{ organization_id: number; key: string; value: number | null }>`select organization_id, key, value from org_limits order by key`,
      all,
    }));
    const result = [];
    for (const org of orgs) {
      // Each org's use is counted bound to that org, as its officers' page counts it.
      const entries = await limits.report(all.forOrg(org.id).em, org);
      result.push({
        id: org.id, prefix: org.prefix, name: org.name,
        near_limit: entries.some((e) => e.near_limit),
        overrides: Object.fromEntries(rows.filter((r) => r.organization_id === org.id).map((r) => [r.key, r.value])),
        limits: entries,
      });
    }
    return { orgs: result };
  });

  app.put('/api/superadmin/limits/:org', {
    config: { auth: 'superadmin' },
    schema: {
      tags: ['limits', 'superadmin'], summary: 'Set the org\'s overrides; answers the org\'s limits', 
      params: OrgParams,
      body: OverridesBody,
      response: {
        200: Type.Object({
          ...OrgLimitsWithOverrides.properties,
          changes: Type.Array(Type.Object({ key: Type.String(), from: OverrideChange, to: OverrideChange }), { description: 'what changed; "default": no override' }),
        }),
        400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody,
      },
    },
    validatorCompiler: strictOverridesValidator(registry, app.validatorCompiler!),
  }, async (request) => {
    const org = request.org!;
    const caller = request.caller as OfficerCaller;
    // Overrides are recorded as the superadmin's (`superadmin:<chat id>`), not as the caller's actor (`officer:…`),
    // in org_limits.set_by and the audit row alike: hence the service call rather than request.audit.
    const actor = `superadmin:${caller.chatUserId}`;
    const changes = await request.em.transactional(async (em) => {
      const applied = await limits.setOverrides(em, org.id, request.body, actor);
      if (applied.length) await app.quad.audit(em, { orgId: org.id, actor, action: 'limits.override', details: { changes: applied } });
      return applied;
    });
    const overrides = await limits.overrides(request.em, org.id);
    return {
      org: { id: org.id, prefix: org.prefix },
      overrides: Object.fromEntries(overrides),
      changes,
      limits: await limits.report(request.em, org),
    };
  });
};
