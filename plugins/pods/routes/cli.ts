// CLI sign-in (spec "Member pod routes"): the CLI opens /api/compute/<org>/cli/login in the member's browser; Discord
// sends them back to <ACCOUNTS_BASE_URL>/api/compute/cli/callback, which, when they are on the org's server and the
// module is on, shows a new CLI token once (kind cli, podhost:connect, 90 days; the member's previous one is revoked).
import { HttpError, Organization, OrgParams, Type, forbidden, notFound, unavailable, type RoutesPlugin } from '@quad/core';
import { CLI_PAGE_HEADERS, cliTokenPage } from '../cli-page.js';
import { MODULE, type PodsSettings } from '../settings.js';

const CALLBACK_PATH = '/api/compute/cli/callback';
const ErrorBody = Type.Object({ error: Type.String(), reason: Type.Optional(Type.String()) });

export default (async (app) => {
  const services = app.quad;
  const settings = () => services.moduleSettings<PodsSettings>(MODULE);
  function callbackUrl(): string {
    const base = settings().ACCOUNTS_BASE_URL;
    if (!base) throw unavailable('CLI sign-in is not configured on this server (ACCOUNTS_BASE_URL)', 'not_configured');
    return new URL(CALLBACK_PATH, base).toString();
  }

  app.get('/api/compute/:org/cli/login', {
    config: { auth: 'public' },
    schema: { tags: ['pods'], summary: 'Start the CLI sign-in: redirects to Discord (needs ACCOUNTS_BASE_URL, CLIENT_ID, CLIENT_SECRET)', params: OrgParams, response: { 404: ErrorBody, 503: ErrorBody } },
  }, async (request, reply) => services.members.begin(request, reply, { redirectUri: callbackUrl(), context: String(request.org!.id) }));

  app.get(CALLBACK_PATH, {
    config: { auth: 'public' },
    schema: {
      tags: ['pods'], summary: 'Discord sends the member here: a page that shows their new CLI token once',
      querystring: Type.Object({ code: Type.Optional(Type.String({ maxLength: 500 })), state: Type.Optional(Type.String({ maxLength: 500 })), error: Type.Optional(Type.String({ maxLength: 500 })) }),
      response: { 200: Type.String({ description: 'an HTML page with the token' }), 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 503: ErrorBody },
    },
  }, async (request, reply) => {
    const { code, state, error } = request.query;
    if (!code && error) throw new HttpError(400, `Discord sign-in did not finish (${error}); run ${settings().PODHOST_CLI_NAME} login again`, 'sign_in_cancelled');
    const { user, context } = await services.members.complete(request, reply, { redirectUri: callbackUrl(), code, state });
    const org = /^\d+$/.test(context) ? await request.em.findOne(Organization, { id: Number(context) }) : null;
    if (!org || !services.registry.isEnabled(org.modules, MODULE)) throw notFound('Pods are off for this org', 'module_off');
    const member = org.discordGuildId ? await services.discord.member(org.discordGuildId, user.id) : null;
    if (!member) throw forbidden('You are not a member of the org\'s Discord server', 'not_member');
    // The callback's URL names no org (one URL is registered with Discord): the org comes from the sign-in's signed
    // state, so the request is bound to none and the work takes that org's handle.
    const db = services.orgDb(org.id);
    const issued = await db.transaction(async (tx) => {
      const made = await services.members.issueCliToken(tx.em, org.id, { chatUserId: user.id, name: `${settings().PODHOST_CLI_NAME} (${user.username})` });
      await services.audit(tx.em, { orgId: org.id, actor: `member:${user.id}`, action: 'podhost.cli_token', details: { chat_user_id: user.id, token_prefix: made.prefix, expires_at: made.expiresAt.toISOString() } });
      return made;
    });
    return reply.headers(CLI_PAGE_HEADERS).send(cliTokenPage({ cliName: settings().PODHOST_CLI_NAME, orgName: org.name, username: user.username, token: issued.token, expiresAt: issued.expiresAt }));
  });
}) satisfies RoutesPlugin;
