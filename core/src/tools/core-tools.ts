// The core's own tools: tokens.*, org.info, org.limits and modules.list. Descriptions are written for a model;
// each declares its output (MCP outputSchema: the structuredContent of a result follows it).
import { Type } from '@sinclair/typebox';
import { defineTool } from '../modules/define.js';
import { TokenCreateBody, TokenView } from '../auth/routes/org-tokens.js';
import { LimitEntry } from '../limits/routes.js';
import { Listing } from '../orgs/routes.js';
import { tokenView } from '../auth/machine-tokens.js';
import { issueToken, listTokens, revokeToken } from '../auth/token-admin.js';
import { listModules } from '../orgs/module-switches.js';
import { submoduleReaders } from '../orgs/submodule-readers.js';
import { Branding, BRANDING_KEY, readBranding } from '../orgs/branding.js';

export const tokensList = defineTool({
  name: 'tokens.list',
  title: 'List machine tokens',
  description: 'Lists the org\'s machine tokens (name, kind, scopes, limits, prefix, expiry, revoked, last use) — never the tokens themselves. Use it before creating or revoking one. Example: {} -> {"tokens": [{"id": 3, "name": "ci bot", ...}]}',
  scope: 'tokens:manage',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ tokens: Type.Array(TokenView) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ em, org }) {
    return { tokens: await listTokens(em, org.id) };
  },
});

export const tokensCreate = defineTool({
  name: 'tokens.create',
  title: 'Create a machine token',
  description: 'Creates a machine token for the org with at most the calling token\'s scopes and limits. The new token (plat_…) is in the answer once; store it. Needs confirm: the first call answers confirm_required with a preview. Example: {"name": "ci", "kind": "agent", "scopes": ["org:read"], "expires_days": 30, "confirm": true}',
  scope: 'tokens:manage',
  input: TokenCreateBody,
  output: Type.Object({ token: Type.String({ description: 'plat_…, shown only now' }), record: TokenView }),
  confirm: true,
  annotations: { destructive: false, idempotent: false },
  async preview(_ctx, input) {
    return { action: 'create a machine token', name: input.name, kind: input.kind, scopes: input.scopes, expires_days: input.expires_days ?? null };
  },
  async handler({ em, org, caller, services }, input) {
    const issued = await issueToken(em, services, org.id, input, { kind: 'machine', actor: caller.actor, scopes: caller.scopes, limits: caller.limits });
    return { token: issued.token, record: tokenView(issued.record) };
  },
});

export const tokensRevoke = defineTool({
  name: 'tokens.revoke',
  title: 'Revoke a machine token',
  description: 'Revokes one of the org\'s machine tokens by id (see tokens.list); its later use is refused. Needs confirm. Example: {"id": 3, "confirm": true}',
  scope: 'tokens:manage',
  input: Type.Object({ id: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
  output: Type.Object({ revoked: Type.Literal(true), id: Type.Integer() }),
  confirm: true,
  annotations: { destructive: true, idempotent: true },
  async preview({ em, org }, input) {
    const token = (await listTokens(em, org.id)).find((t) => t.id === input.id);
    return { action: 'revoke a machine token', token: token ?? null };
  },
  async handler({ em, org, caller, services }, input) {
    await revokeToken(em, services, org.id, input.id, caller.actor);
    return { revoked: true, id: input.id };
  },
});

export const orgInfo = defineTool({
  name: 'org.info',
  title: 'Org profile',
  description: 'The org\'s prefix, name, description, points settings, branding and the modules that are on. Use it to learn what this org is and can do. Example: {} -> {"prefix": "acm", "modules_on": ["points", "store"], ...}',
  scope: 'org:read',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    id: Type.Integer(), prefix: Type.String(), name: Type.String(), description: Type.String(),
    points_per_message: Type.Integer(), points_cooldown_seconds: Type.Integer(), branding: Branding,
    modules_on: Type.Array(Type.String(), { description: 'the modules that are on, core modules included' }),
  }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ org, services }) {
    return {
      id: org.id, prefix: org.prefix, name: org.name, description: org.description,
      points_per_message: org.pointsPerMessage, points_cooldown_seconds: org.pointsCooldownSeconds,
      branding: readBranding(org.config[BRANDING_KEY] as Partial<Branding> | undefined),
      modules_on: services.registry.modules.filter((m) => services.registry.isEnabled(org.modules, m.name)).map((m) => m.name),
    };
  },
});

export const orgLimits = defineTool({
  name: 'org.limits',
  title: 'Org limits and use',
  description: 'The limits of the modules that are on (count limits such as sources or pods, rate limits such as tool calls a minute) with the org\'s current use. Check it before bulk work. Example: {} -> {"limits": [{"key": "mcp.calls_per_minute", "value": 300, "use": 12, ...}]}',
  scope: 'org:read',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ limits: Type.Array(LimitEntry) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ em, org, services }) {
    return { limits: await services.limits.report(em, org) };
  },
});

export const modulesList = defineTool({
  name: 'modules.list',
  title: 'Modules of the org',
  description: 'Every optional module with whether it is on for the org, whether its needs are connected, and its category. Example: {} -> {"modules": [{"name": "store", "enabled": true, ...}], "categories": [...]}',
  scope: 'org:read',
  input: Type.Object({}, { additionalProperties: false }),
  output: Listing,
  annotations: { readOnly: true, idempotent: true },
  async handler({ em, org, services }) {
    return listModules(em, services.registry, services.secrets, org, await submoduleReaders(services));
  },
});
