// Legacy app tokens (120 days; claims type=app and the officer's chat_user_id) and the machine token's whoami.
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../../http/errors.js';
import type { MachineCaller, OfficerCaller } from '../callers.js';
import { AppToken } from '../entities.js';
import { revokeJwt } from '../revocations.js';
import { APP_TOKEN_DAYS, ISSUER } from '../secrets.js';
import { ErrorBody, Id } from '../../http/schemas.js';

const AppTokenView = Type.Object({
  id: Type.Integer(), created_at: Type.String(), expires_at: Type.String(), revoked: Type.Boolean(),
});

export const appTokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/auth/appToken', {
    config: { auth: 'officer' },
    schema: {
      tags: ['auth'], summary: 'Make a legacy app token (120 days). Prefer machine tokens.', 
      response: { 200: Type.Object({ token: Type.String(), id: Type.Integer(), expires_at: Type.String() }), 401: ErrorBody, 403: ErrorBody },
    },
  }, async (request) => {
    const caller = request.caller as OfficerCaller;
    const jti = randomUUID();
    const expiresAt = new Date(Date.now() + APP_TOKEN_DAYS * 86_400_000);
    const record = request.em.create(AppToken, { jti, chatUserId: caller.chatUserId, username: caller.username, expiresAt });
    await request.em.flush();
    await request.audit(request.em, 'auth.app_token_create', { id: record.id });
    const token = app.jwt.sign(
      { username: caller.username, chat_user_id: caller.chatUserId, type: 'app', jti },
      { sub: caller.chatUserId, iss: ISSUER, expiresIn: APP_TOKEN_DAYS * 86_400 },
    );
    return { token, id: record.id, expires_at: expiresAt.toISOString() };
  });

  app.get('/api/auth/appTokens', {
    config: { auth: 'officer' },
    schema: { tags: ['auth'], summary: 'The caller\'s app tokens (never the tokens themselves)', response: { 200: Type.Object({ app_tokens: Type.Array(AppTokenView) }) } },
  }, async (request) => {
    const caller = request.caller as OfficerCaller;
    const rows = await request.em.find(AppToken, { chatUserId: caller.chatUserId }, { orderBy: { id: 'desc' } });
    return { app_tokens: rows.map((r) => ({ id: r.id, created_at: r.createdAt.toISOString(), expires_at: r.expiresAt.toISOString(), revoked: r.revokedAt !== null })) };
  });

  app.delete('/api/auth/appTokens/:id', {
    config: { auth: 'officer' },
    schema: {
      tags: ['auth'], summary: 'Revoke one of the caller\'s app tokens', 
      params: Type.Object({ id: Id }),
      response: { 200: Type.Object({ revoked: Type.Boolean() }), 404: ErrorBody },
    },
  }, async (request) => {
    const caller = request.caller as OfficerCaller;
    const record = await request.em.transactional(async (em) => {
      const found = await em.findOne(AppToken, { id: request.params.id, chatUserId: caller.chatUserId });
      if (!found) throw notFound('No such app token', 'unknown_app_token');
      if (!found.revokedAt) {
        found.revokedAt = new Date();
        await revokeJwt((sql, params) => em.execute(sql, params as never[]), found.jti, found.expiresAt);
        await request.audit(em, 'auth.app_token_revoke', { id: found.id });
      }
      return found;
    });
    app.auth.revocations.remember(record.jti, record.expiresAt.getTime());
    return { revoked: true };
  });

  app.get('/api/auth/machine/whoami', {
    config: { auth: 'machine' },
    schema: {
      tags: ['auth'], summary: 'The org, name, kind and scopes of the calling machine token', 
      response: {
        200: Type.Object({
          org: Type.Object({ id: Type.Integer(), prefix: Type.String(), name: Type.String() }),
          id: Type.Integer(), name: Type.String(), kind: Type.String(), scopes: Type.Array(Type.String()),
          expires_at: Type.Union([Type.String(), Type.Null()]),
        }),
        401: ErrorBody,
      },
    },
  }, async (request) => {
    const { token } = request.caller as MachineCaller;
    const org = await request.em.findOneOrFail('Organization', { id: token.organization.id }) as { id: number; prefix: string; name: string };
    return { org: { id: org.id, prefix: org.prefix, name: org.name }, id: token.id, name: token.name, kind: token.kind, scopes: token.scopes, expires_at: token.expiresAt?.toISOString() ?? null };
  });
};
