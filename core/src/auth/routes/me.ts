// The signed-in officer as the dashboard needs them: who they are, whether they are a superadmin, and the orgs they
// may open (the org switcher). Officer roles are read from Discord like every access check (cached 60 s).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Organization } from '../../entities/organization.js';
import { ErrorBody } from '../../http/schemas.js';
import type { OfficerCaller } from '../callers.js';

const OrgView = Type.Object({ id: Type.Integer(), prefix: Type.String(), name: Type.String() });

export const meRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/auth/me', {
    config: { auth: 'officer' },
    schema: {
      tags: ['auth'], summary: 'The signed-in officer: name, superadmin or not, and the orgs they are an officer of (all orgs for a superadmin)',
      response: {
        200: Type.Object({ chat_user_id: Type.String(), username: Type.String(), superadmin: Type.Boolean(), orgs: Type.Array(OrgView) }),
        401: ErrorBody, 403: ErrorBody, 503: ErrorBody,
      },
    },
  }, async (request) => {
    const caller = request.caller as OfficerCaller;
    const superadmin = app.auth.access.isSuperadmin(caller.chatUserId);
    // Only an org bound to a server with an officer role has officers; a superadmin may open every org.
    const orgs = await request.em.find(Organization, superadmin ? {} : { discordGuildId: { $ne: null }, officerRoleId: { $ne: null } }, { orderBy: { name: 'asc', id: 'asc' } });
    const mine = superadmin ? orgs : await app.auth.access.officerOrgs(orgs, caller.chatUserId);
    // officerOrgs answers in the order its checks finish: keep the name order.
    const allowed = new Set(mine.map((o) => o.id));
    return {
      chat_user_id: caller.chatUserId, username: caller.username, superadmin,
      orgs: orgs.filter((o) => allowed.has(o.id)).map((o) => ({ id: o.id, prefix: o.prefix, name: o.name })),
    };
  });
};
