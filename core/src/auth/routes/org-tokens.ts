// Machine tokens of an org (spec: "Organisation token and module routes", tokens part): create (shown once),
// list (never the token or its hash; with every scope and integration), preview the tools a new token would get,
// and revoke. Officers of the org, or a machine token with tokens:manage.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { MachineCaller } from '../callers.js';
import { checkTokenRequest, TOKEN_KINDS, tokenView, type TokenCreator } from '../machine-tokens.js';
import { issueToken, listTokens, revokeToken, tokenCatalog } from '../token-admin.js';
import { ErrorBody, Id, OrgParams, orgParams } from '../../http/schemas.js';

export const Limits = Type.Record(Type.String(), Type.Object({
  repos: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  tools: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
}, { additionalProperties: false }));

export const TokenCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  kind: Type.Union(TOKEN_KINDS.map((k) => Type.Literal(k))),
  scopes: Type.Array(Type.String(), { minItems: 1, maxItems: 50 }),
  expires_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
  limits: Type.Optional(Limits),
}, { additionalProperties: false });

export const TokenView = Type.Object({
  id: Type.Integer(), name: Type.String(), kind: Type.String(), scopes: Type.Array(Type.String()), limits: Limits,
  prefix: Type.String({ description: 'first characters of the token, to tell tokens apart' }),
  created_by: Type.String(), created_at: Type.String(), expires_at: Type.Union([Type.String(), Type.Null()]),
  revoked: Type.Boolean(), last_used_at: Type.Union([Type.String(), Type.Null()]),
});

const ScopeView = Type.Object({
  name: Type.String(), description: Type.String(), module: Type.String(),
  integration: Type.Union([Type.String(), Type.Null()]), uses: Type.Array(Type.String()),
});
const IntegrationView = Type.Object({
  key: Type.String(), title: Type.String(), description: Type.String(), module: Type.String(), connected: Type.Boolean(),
  scopes: Type.Array(Type.String()), tools: Type.Record(Type.String(), Type.Array(Type.String())), remote: Type.Boolean(),
  remote_error: Type.Union([Type.String(), Type.Null()], { description: 'why the connected service\'s MCP server could not list its tools (they are left out of tools), or null' }),
  through: Type.Array(Type.String()), used_by: Type.Array(Type.String()), limits: Type.Array(Type.String()),
});

const PreviewBody = Type.Object({
  scopes: Type.Array(Type.String(), { maxItems: 50 }),
  limits: Type.Optional(Limits),
}, { additionalProperties: false });

const PreviewTool = Type.Object({
  name: Type.String(), title: Type.String(), scope: Type.String({ description: 'the scope that grants it' }),
  integration: Type.Union([Type.String(), Type.Null()], { description: 'the integration whose scope grants it, or null' }),
  remote: Type.Boolean({ description: 'served from the integration\'s own MCP server' }),
});

export const orgTokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const auth = 'officerOrMachine:tokens:manage' as const;

  app.post('/api/organizations/:org/tokens', {
    config: { auth },
    schema: {
      tags: ['tokens'], summary: 'Create a machine token; the response shows it once', 
      params: OrgParams, body: TokenCreateBody,
      response: { 201: Type.Object({ token: Type.String({ description: 'plat_…, shown only now' }), record: TokenView }), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
    },
  }, async (request, reply) => {
    const issued = await issueToken(request.em, app.quad, request.org!.id, request.body, creatorOf(request));
    return reply.code(201).send({ token: issued.token, record: tokenView(issued.record) });
  });

  app.get('/api/organizations/:org/tokens', {
    config: { auth },
    schema: {
      tags: ['tokens'], summary: 'The org\'s machine tokens, every scope (with the services it uses) and every integration', 
      params: OrgParams,
      response: { 200: Type.Object({ tokens: Type.Array(TokenView), scopes: Type.Array(ScopeView), integrations: Type.Array(IntegrationView) }), 401: ErrorBody, 403: ErrorBody },
    },
  }, async (request) => ({ tokens: await listTokens(request.em, request.org!.id), ...(await tokenCatalog(request.em, app.quad, request.org!.id, app.tools)) }));

  app.post('/api/organizations/:org/tokens/preview', {
    config: { auth },
    schema: {
      tags: ['tokens'],
      summary: 'The tools a new token with these scopes and limits would get now (remote ones included); nothing is created',
      description: 'Checks scopes and limits as creating does (400 unknown scope or integration, bad pattern; 403 wider than the calling token). `unavailable` names the connected services whose MCP server could not list its tools.',
      params: OrgParams, body: PreviewBody,
      response: {
        200: Type.Object({
          tools: Type.Array(PreviewTool),
          unavailable: Type.Array(Type.Object({ integration: Type.String(), error: Type.String(), reason: Type.Union([Type.String(), Type.Null()]) })),
        }),
        400: ErrorBody, 401: ErrorBody, 403: ErrorBody,
      },
    },
  }, async (request) => {
    const { scopes, limits } = request.body;
    const granted = checkTokenRequest(app.quad.registry, { name: 'preview', kind: 'agent', scopes, limits }, creatorOf(request));
    const { tools, unavailable } = await app.tools.entries(request.org!, { scopes, limits: granted });
    return {
      tools: tools.map((e) => ({ name: e.listing.name, title: e.listing.title, scope: e.scope, integration: e.integration, remote: e.remote })),
      unavailable,
    };
  });

  app.delete('/api/organizations/:org/tokens/:id', {
    config: { auth },
    schema: {
      tags: ['tokens'], summary: 'Revoke a machine token; its later use gets 401', 
      params: orgParams({ id: Id }),
      response: { 200: Type.Object({ revoked: Type.Boolean() }), 404: ErrorBody },
    },
  }, async (request) => {
    await revokeToken(request.em, app.quad, request.org!.id, request.params.id, request.caller!.actor);
    return { revoked: true };
  });
};

/** Who creates (or previews) a token: an officer, or a machine token that bounds what it may grant. */
function creatorOf(request: FastifyRequest): TokenCreator {
  const caller = request.caller!;
  return caller.kind === 'machine'
    ? { kind: 'machine', actor: caller.actor, scopes: (caller as MachineCaller).scopes, limits: (caller as MachineCaller).token.limits }
    : { kind: 'officer', actor: caller.actor };
}
