// Member sign-in with Discord for a module's own flow (the pods CLI's, say): the module owns its routes and its
// callback URL (registered as a redirect of the Discord app); the core keeps the OAuth state in the session cookie,
// exchanges the code and remembers the user, as for its own sign-ins. And CLI tokens, which only such a flow issues.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../http/errors.js';
import type { MemberSignInService } from '../core-services.js';
import { issueCliToken } from './machine-tokens.js';
import { writeSession } from './session.js';
import { beginDiscordSignIn, checkSignInState, discordUserOfCode, rememberDiscordUser, secureCookies } from './routes/shared.js';

export const memberSignIn: MemberSignInService = {
  begin(request: FastifyRequest, reply: FastifyReply, options) {
    return beginDiscordSignIn(request.server, request, reply, 'module', { context: options.context }, options.scope ?? 'identify', options.redirectUri);
  },

  async complete(request: FastifyRequest, reply: FastifyReply, options) {
    const app = request.server;
    const session = checkSignInState(app, request, 'module', options.state);
    // The state is single use: forget it whatever happens next.
    writeSession(reply, { ...session!, state: undefined, stateExpires: undefined, flow: undefined, context: undefined }, secureCookies(app));
    if (!options.code) throw badRequest('Discord sent no code; start the sign-in again', 'invalid_oauth_code');
    const user = await discordUserOfCode(app, options.code, options.redirectUri);
    await rememberDiscordUser(request.em, user);
    return { user: { id: user.id, username: user.username, name: user.global_name ?? user.username }, context: session?.context ?? '' };
  },

  async issueCliToken(em, orgId, member) {
    const { token, record } = await issueCliToken(em, orgId, member);
    return { token, prefix: record.tokenPrefix, expiresAt: record.expiresAt! };
  },
};
