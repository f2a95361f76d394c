// Machine tokens of an org (spec: "Organisation token and module routes", tokens part): create (shown once),
// list (never the token or its hash) and revoke. Officers of the org, or a machine token with tokens:manage.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../../http/errors.js';
import type { MachineCaller } from '../callers.js';
import { MachineToken } from '../entities.js';
import { TOKEN_KINDS, checkTokenRequest, createMachineToken, tokenView, type TokenCreator } from '../machine-tokens.js';
import { ErrorBody, OrgParams } from './shared.js';

const Limits = Type.Record(Type.String(), Type.Object({
  repos: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  tools: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
}, { additionalProperties: false }));

const TokenView = Type.Object({
  id: Type.Integer(), name: Type.String(), kind: Type.String(), scopes: Type.Array(Type.String()), limits: Limits,
  prefix: Type.String({ description: 'first characters of the token, to tell tokens apart' }),
  created_by: Type.String(), created_at: Type.String(), expires_at: Type.Union([Type.String(), Type.Null()]),
  revoked: Type.Boolean(), last_used_at: Type.Union([Type.String(), Type.Null()]),
});

const ScopeView = Type.Object({
  name: Type.String(), description: Type.String(), module: Type.String(),
  integration: Type.Union([Type.String(), Type.Null()]), uses: Type.Array(Type.String()),
});

export const orgTokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { registry } = app.quad;
  const auth = 'officerOrMachine:tokens:manage' as const;

  app.post('/api/organizations/:org/tokens', {
    config: { auth },
    schema: {
      tags: ['tokens'], summary: 'Create a machine token; the response shows it once', security: [{ bearer: [] }],
      params: OrgParams,
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 100 }),
        kind: Type.Union(TOKEN_KINDS.map((k) => Type.Literal(k))),
        scopes: Type.Array(Type.String(), { minItems: 1, maxItems: 50 }),
        expires_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
        limits: Type.Optional(Limits),
      }, { additionalProperties: false }),
      response: { 201: Type.Object({ token: Type.String({ description: 'plat_…, shown only now' }), record: TokenView }), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
    },
  }, async (request, reply) => {
    const org = request.org!;
    const caller = request.caller!;
    const creator: TokenCreator = caller.kind === 'machine'
      ? { kind: 'machine', actor: caller.actor, scopes: (caller as MachineCaller).scopes, limits: (caller as MachineCaller).token.limits }
      : { kind: 'officer', actor: caller.actor };
    const limits = checkTokenRequest(registry, request.body, creator);
    const issued = await request.em.transactional(async (em) => {
      const made = await createMachineToken(em, org.id, {
        name: request.body.name, kind: request.body.kind, scopes: request.body.scopes, limits,
        expiresDays: request.body.expires_days, createdBy: caller.actor,
      });
      await app.quad.audit(em, {
        orgId: org.id, actor: caller.actor, action: 'tokens.create',
        details: { token_id: made.record.id, name: made.record.name, kind: made.record.kind, scopes: made.record.scopes, prefix: made.record.tokenPrefix },
      });
      return made;
    });
    return reply.code(201).send({ token: issued.token, record: tokenView(issued.record) });
  });

  app.get('/api/organizations/:org/tokens', {
    config: { auth },
    schema: {
      tags: ['tokens'], summary: 'The org\'s machine tokens and every scope a token can hold', security: [{ bearer: [] }],
      params: OrgParams,
      response: { 200: Type.Object({ tokens: Type.Array(TokenView), scopes: Type.Array(ScopeView) }), 401: ErrorBody, 403: ErrorBody },
    },
  }, async (request) => {
    const tokens = await request.em.find(MachineToken, {}, { orderBy: { id: 'desc' } });
    const scopes = [...registry.scopes.values()].map((s) => ({
      name: s.name, description: s.description, module: s.module, integration: s.integration ?? null, uses: s.uses ?? [],
    }));
    return { tokens: tokens.map(tokenView), scopes };
  });

  app.delete('/api/organizations/:org/tokens/:id', {
    config: { auth },
    schema: {
      tags: ['tokens'], summary: 'Revoke a machine token; its later use gets 401', security: [{ bearer: [] }],
      params: Type.Object({ org: Type.String(), id: Type.Integer() }),
      response: { 200: Type.Object({ revoked: Type.Boolean() }), 404: ErrorBody },
    },
  }, async (request) => {
    const caller = request.caller!;
    return request.em.transactional(async (em) => {
      // The org filter makes another org's token id a 404.
      const token = await em.findOne(MachineToken, { id: request.params.id });
      if (!token) throw notFound('No such token', 'unknown_token');
      if (!token.revokedAt) {
        token.revokedAt = new Date();
        await app.quad.audit(em, { orgId: request.org!.id, actor: caller.actor, action: 'tokens.revoke', details: { token_id: token.id, name: token.name } });
      }
      return { revoked: true };
    });
  });
};
