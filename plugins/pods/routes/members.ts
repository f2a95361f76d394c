// Officer routes about the members of the org's Discord server (spec "Officer pod routes", prefix
// /api/compute/<org>): search and the whole list (GET /members?q=&role=&limit=), names by id (GET /members?ids=),
// the server's roles (GET /members/roles), and who may use and who lately used one pod (GET /pods/<pod_id>/members).
import { ErrorBody, OrgParams, Type, badRequest, type RoutesPlugin } from '@quad/core';
import { NAMES_MAX, findMembers, lookupMembers, podMembers, serverOf, serverRoles } from '../members.js';
import { findPod } from '../pods.js';
import { Errors, PodParams, SnowflakePattern, officer } from '../schemas.js';

const LIMIT_DEFAULT = 50;
const LIMIT_MAX = 500;
/** Discord's errors: its refusal (424: the bot's member-list permission, or the bot not in the server) or no answer (503). */
const DiscordErrors = { 424: ErrorBody, 503: ErrorBody };

const Name = Type.Union([Type.String(), Type.Null()], { description: 'display name on the org\'s server (nickname, else global name, else username); null when unknown' });
const MemberOut = Type.Object({
  id: Type.String({ description: 'chat user id' }),
  name: Type.String({ description: 'display name: nickname, else global name, else username' }),
  username: Type.String(),
  avatar: Type.Union([Type.String(), Type.Null()], { description: 'Discord avatar hash (cdn.discordapp.com/avatars/<id>/<hash>.png)' }),
  roles: Type.Array(Type.String(), { description: 'role ids (without @everyone)' }),
});
const MembersOut = Type.Object({
  members: Type.Array(MemberOut),
  total: Type.Integer({ description: 'matches before limit (ids: members found)' }),
  unknown: Type.Optional(Type.Array(Type.String(), { description: 'ids lookup: the ids that are not members of the server' })),
});
const MembersQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 100, description: 'prefix of a username or nickname (Discord\'s member search); without it, the whole member list' })),
  role: Type.Optional(Type.String({ pattern: SnowflakePattern, description: 'keep the holders of this role id' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMIT_MAX, description: `default ${LIMIT_DEFAULT}` })),
  ids: Type.Optional(Type.String({ maxLength: NAMES_MAX * 22, description: `up to ${NAMES_MAX} comma-separated chat user ids to look up instead of searching` })),
}, { additionalProperties: false });
const RolesOut = Type.Object({ roles: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), color: Type.Integer() })) });
const PodMembersOut = Type.Object({
  access: Type.Object({
    is_public: Type.Boolean(),
    allowed_users: Type.Array(Type.Object({ chat_user_id: Type.String(), name: Name })),
  }),
  recent: Type.Array(Type.Object({
    chat_user_id: Type.String(), name: Name,
    username: Type.String({ description: 'the login name on the pod' }), is_admin: Type.Boolean(), created_at: Type.String({ format: 'date-time' }),
  }), { description: 'the last 100 certificates for the pod, newest first' }),
});

/** `ids` as distinct chat user ids: 1 to NAMES_MAX of them, each digits; anything else is 400 `invalid_ids`. */
function parseIds(raw: string): string[] {
  const given = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (!given.length) throw badRequest('ids names no chat user id', 'invalid_ids');
  if (given.length > NAMES_MAX) throw badRequest(`ids names ${given.length} chat user ids; at most ${NAMES_MAX}`, 'invalid_ids');
  const bad = given.find((id) => !/^\d{1,20}$/.test(id));
  if (bad !== undefined) throw badRequest(`ids: "${bad.slice(0, 40)}" is not a chat user id (digits)`, 'invalid_ids');
  return [...new Set(given)];
}

export default (async (app) => {
  const { discord } = app.quad;

  app.get('/api/compute/:org/members', {
    config: officer,
    schema: {
      tags: ['pods'],
      summary: `Members of the org's server, bots left out, sorted by name: q searches a username or nickname prefix, role keeps one role's holders, limit 1–${LIMIT_MAX} (default ${LIMIT_DEFAULT}). `
        + `Without q the whole list is read, which needs the bot's Server Members intent (else 424 member_list_forbidden). With ids=<id>,<id> (up to ${NAMES_MAX}, not with q, role or limit): those members, in the order asked`,
      params: OrgParams, querystring: MembersQuery, response: { 200: MembersOut, ...Errors, ...DiscordErrors },
    },
  }, async (request) => {
    const guildId = serverOf(request.org!);
    const { q, role, limit, ids } = request.query;
    if (ids !== undefined) {
      if (q !== undefined || role !== undefined || limit !== undefined) throw badRequest('ids looks members up by id; it does not go with q, role or limit', 'ids_with_search');
      return lookupMembers(discord, guildId, parseIds(ids));
    }
    // An empty search box is no search: the whole list.
    const prefix = q?.trim() || undefined;
    return findMembers(discord, guildId, { q: prefix, role, limit: limit ?? LIMIT_DEFAULT });
  });

  app.get('/api/compute/:org/members/roles', {
    config: officer,
    schema: {
      tags: ['pods'], summary: 'The roles of the org\'s server, highest first, without @everyone and bot-managed roles',
      params: OrgParams, response: { 200: RolesOut, ...Errors, ...DiscordErrors },
    },
  }, async (request) => ({ roles: await serverRoles(discord, serverOf(request.org!)) }));

  app.get('/api/compute/:org/pods/:pod_id/members', {
    config: officer,
    schema: {
      tags: ['pods'],
      summary: `Who may use the pod (is_public, allowed users) and the last 100 certificates for it, newest first; names from the org's server for at most ${NAMES_MAX} members (else null, also when Discord fails)`,
      params: PodParams, response: { 200: PodMembersOut, ...Errors },
    },
  }, async (request) => {
    const pod = await findPod(request.db, request.params.pod_id);
    return podMembers(request.db, discord, request.org!, pod, (err) => request.log.warn({ err, pod: pod.pod_id }, 'podhost: names of a pod\'s members could not be read from Discord'));
  });
}) satisfies RoutesPlugin;
