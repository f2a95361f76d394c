// Officer routes of an org: module switches and the Explore listing, branding, general settings.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Organization } from '../entities/organization.js';
import { ErrorBody, OrgParams } from '../http/schemas.js';
import { Branding, BrandingUpdate, BRANDING_KEY, applyBranding, readBranding } from './branding.js';
import { listModules, switchModulesAudited, withPages } from './module-switches.js';
import { submoduleReaders } from './submodule-readers.js';
import { getOrgConfig, setOrgConfig } from './org-config.js';

const NeedView = Type.Object({ key: Type.String(), label: Type.String(), kind: Type.String(), optional: Type.Boolean(), connected: Type.Boolean() });
const ModuleView = Type.Object({
  name: Type.String(), title: Type.String(), description: Type.String(), category: Type.String(),
  switchable: Type.Boolean(), enabled: Type.Boolean(), ready: Type.Boolean(), needs: Type.Array(NeedView),
  submodules: Type.Array(Type.Object({ name: Type.String(), title: Type.String() })),
});
export const Listing = Type.Object({ modules: Type.Array(ModuleView), categories: Type.Array(Type.String()) });

/** A module's dashboard pages (manifest `pages`): the bundle's entry on this service and the pages it renders. */
const PagesView = Type.Union([Type.Object({
  entry: Type.String({ description: 'URL path of the bundle\'s entry module, e.g. /dashboard/plugins/hello/index.js' }),
  list: Type.Array(Type.Object({
    path: Type.String(), title: Type.String(), category: Type.String(), icon: Type.Union([Type.String(), Type.Null()]),
    component: Type.String({ description: 'the entry\'s export that renders the page' }),
  })),
  overview_card: Type.Union([Type.String(), Type.Null()], { description: 'the entry\'s export that renders the module\'s Overview card' }),
  activity_tabs: Type.Array(Type.Object({
    id: Type.String({ description: 'the tab\'s ?tab= value' }), label: Type.String(),
    component: Type.String({ description: 'the entry\'s export that renders the tab' }),
  })),
  explore_tabs: Type.Array(Type.Object({
    id: Type.String({ description: 'the tab\'s ?tab= value; `submodules` fills Explore\'s Submodules tab' }), label: Type.String(),
    component: Type.String({ description: 'the entry\'s export that renders the tab' }),
  })),
}), Type.Null()]);
/**
 * The listing as the dashboard reads it: each module also has its `pages`, and `included` lists the core modules
 * (always on: Explore shows them as Included; their pages are never hidden).
 */
export const DashboardListing = Type.Object({
  modules: Type.Array(Type.Intersect([ModuleView, Type.Object({ pages: PagesView })])),
  categories: Type.Array(Type.String()),
  included: Type.Array(Type.Object({ name: Type.String(), title: Type.String(), description: Type.String(), category: Type.String(), pages: PagesView })),
});

const Settings = Type.Object({
  id: Type.Integer(), prefix: Type.String(), name: Type.String(), description: Type.String(),
  guild_id: Type.Union([Type.String(), Type.Null()]), officer_role_id: Type.Union([Type.String(), Type.Null()]),
  points_per_message: Type.Integer(), points_cooldown_seconds: Type.Integer(), publisher: Type.Boolean(),
});

export const orgRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { registry, secrets } = app.quad;

  app.get('/api/dashboard/:org/modules', {
    config: { auth: 'officer' },
    schema: { tags: ['org'], summary: 'Explore: every optional module with its switch, readiness and needs', params: OrgParams, response: { 200: DashboardListing } },
  }, async (request) => withPages(await listModules(request.em, registry, secrets, request.org!, await submoduleReaders(app.quad)), registry));

  app.put('/api/organizations/:org/modules', {
    config: { auth: 'officer' },
    schema: {
      tags: ['org'], params: OrgParams,
      summary: 'Switch modules on or off: body {"modules": {"<name>": true|false}}. Switching off keeps the data.',
      body: Type.Object({ modules: Type.Record(Type.String(), Type.Boolean(), { minProperties: 1 }) }, { additionalProperties: false }),
      response: { 200: Type.Intersect([DashboardListing, Type.Object({ changed: Type.Record(Type.String(), Type.Boolean()) })]), 400: ErrorBody, 409: ErrorBody },
    },
  }, async (request) => {
    const org = request.org!;
    const result = await switchModulesAudited(request.em, registry, secrets, org.id, request.body.modules, request.caller!.actor);
    app.orgs.invalidate(org.id);
    const submodules = await submoduleReaders(app.quad);
    return { ...withPages(await listModules(request.em, registry, secrets, { id: org.id, modules: result.modules }, submodules), registry), changed: result.changed };
  });

  app.get('/api/dashboard/:org/branding', {
    config: { auth: 'officer' },
    schema: { tags: ['org'], summary: 'The org\'s logo, accent color and website', params: OrgParams, response: { 200: Branding } },
  }, async (request) => readBranding(request.org!.config[BRANDING_KEY] as Partial<Branding> | undefined));

  app.put('/api/dashboard/:org/branding', {
    config: { auth: 'officer' },
    schema: {
      tags: ['org'], params: OrgParams, body: BrandingUpdate,
      summary: 'Change branding: https URLs, #RRGGBB; an empty string or null removes a value; fields left out stay',
      response: { 200: Branding, 400: ErrorBody },
    },
  }, async (request) => {
    const org = request.org!;
    const branding = await request.em.transactional(async (em) => {
      const next = applyBranding(await getOrgConfig<Partial<Branding>>(em, org.id, BRANDING_KEY), request.body);
      await setOrgConfig(em, org.id, BRANDING_KEY, next);
      await request.audit(em, 'org.branding', { ...next });
      return next;
    });
    app.orgs.invalidate(org.id);
    return branding;
  });

  const view = (o: { id: number; prefix: string; name: string; description: string; discordGuildId?: string | null; officerRoleId?: string | null; pointsPerMessage: number; pointsCooldownSeconds: number; publisher: boolean }) => ({
    id: o.id, prefix: o.prefix, name: o.name, description: o.description, guild_id: o.discordGuildId ?? null, officer_role_id: o.officerRoleId ?? null,
    points_per_message: o.pointsPerMessage, points_cooldown_seconds: o.pointsCooldownSeconds, publisher: o.publisher,
  });

  app.get('/api/dashboard/:org/settings', {
    config: { auth: 'officer' },
    schema: { tags: ['org'], summary: 'General settings of the org', params: OrgParams, response: { 200: Settings } },
  }, async (request) => view(request.org!));

  app.put('/api/dashboard/:org/settings', {
    config: { auth: 'officer' },
    schema: {
      tags: ['org'], summary: 'Change the name, description, points per message or points cooldown', params: OrgParams,
      body: Type.Partial(Type.Object({
        name: Type.String({ minLength: 1, maxLength: 100 }),
        description: Type.String({ maxLength: 2000 }),
        points_per_message: Type.Integer({ minimum: 0, maximum: 1000 }),
        points_cooldown_seconds: Type.Integer({ minimum: 0, maximum: 86_400 }),
      }), { additionalProperties: false, minProperties: 1 }),
      response: { 200: Settings, 400: ErrorBody },
    },
  }, async (request) => {
    const updated = await request.em.transactional(async (em) => {
      const org = await em.findOneOrFail(Organization, { id: request.org!.id });
      const b = request.body;
      if (b.name !== undefined) org.name = b.name.trim();
      if (b.description !== undefined) org.description = b.description;
      if (b.points_per_message !== undefined) org.pointsPerMessage = b.points_per_message;
      if (b.points_cooldown_seconds !== undefined) org.pointsCooldownSeconds = b.points_cooldown_seconds;
      await em.flush();
      await request.audit(em, 'org.settings', { ...b });
      return org;
    });
    app.orgs.invalidate(updated.id);
    return view(updated);
  });
};
