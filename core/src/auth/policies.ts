// The auth policies the spec calls decorators, registered on the core's policy hook:
//   officer            auth_required: a platform token (access or legacy app token) of an officer of the org in the URL
//   dual               dual_auth_required: an identity-provider token or a platform token
//   orgOfficer         org_officer_required: dual, then an officer of the org in the URL
//   superadmin         superadmin_required: a platform token whose chat_user_id is in SYS_ADMIN (always enforced)
//   member             member_required: a chat session of a member of the org's server
//   memberOrCli        a member session, or a CLI machine token (podhost:connect) of the org
//   machine:<scope>    machine_scope_required: 401 bad token, 403 missing scope, 403 another org
//   machine            any valid machine token (whoami)
//   officerOrMachine:<scope>  an officer's platform token, or a machine token with the scope
// Status rules: missing/invalid token 401; expired token in the Authorization header 403; a bad session cookie
// always 401; a machine token on an officer route 401.
import type { FastifyRequest } from 'fastify';
import { HttpError, forbidden, unauthorized } from '../http/errors.js';
import type { AuthPolicies, PolicyHandler } from '../http/auth-policies.js';
import type { AuthServices } from './index.js';
import { credentialOf, type IdpCaller, type MachineCaller, type MemberCaller, type OfficerCaller } from './callers.js';
import { CLI_SCOPE } from './machine-tokens.js';
import { readSession } from './session.js';
import { ISSUER, MACHINE_TOKEN_PREFIX } from './secrets.js';
import { VerifiedTokenCache } from './jwt-cache.js';
import { andThen, type MaybePromise } from '../http/maybe-async.js';
import { IdpTokenInvalid } from '../adapters/idp/index.js';
import { DiscordUnavailable } from '../adapters/discord/index.js';

interface PlatformClaims { sub: string; username: string; chat_user_id: string; type: 'access' | 'app'; jti: string; iss: string; exp: number }

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Authorization must be "Bearer <token>"', 'invalid_token');
  return match[1];
}

/** The issuer of a JWT, read without verifying (to tell our tokens from the identity provider's). */
function issuerOf(token: string): string | null {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof payload?.iss === 'string' ? payload.iss : null;
  } catch {
    return null;
  }
}

const isExpired = (err: unknown) => (err as { code?: string })?.code === 'FST_JWT_AUTHORIZATION_TOKEN_EXPIRED' || (err as { code?: string })?.code === 'FAST_JWT_EXPIRED';

export function createPolicies(auth: AuthServices) {
  const verified = new VerifiedTokenCache<PlatformClaims>();

  /**
   * Verify one of our JWTs: 401 invalid or revoked, 403 expired (header tokens only). No promise for a token verified
   * before (the revocation list answers from memory).
   */
  function platformCaller(request: FastifyRequest, token: string): MaybePromise<OfficerCaller> {
    let claims = verified.get(token);
    if (!claims) {
      try {
        claims = request.server.jwt.verify<PlatformClaims>(token);
      } catch (err) {
        if (isExpired(err)) throw new HttpError(403, 'Access token expired; refresh it', 'token_expired');
        throw unauthorized('Invalid token', 'invalid_token');
      }
      verified.set(token, claims);
    }
    if (claims.iss !== ISSUER || (claims.type !== 'access' && claims.type !== 'app') || !claims.jti) throw unauthorized('Invalid token', 'invalid_token');
    const valid = claims;
    return andThen(auth.revocations.isRevoked(claims.jti), (revoked) => {
      if (revoked) throw unauthorized('Token revoked', 'token_revoked');
      return officerOf(valid);
    });
  }

  function officerOf(claims: PlatformClaims): OfficerCaller {
    return {
      kind: 'officer',
      actor: `officer:${claims.chat_user_id}`,
      chatUserId: claims.chat_user_id,
      username: claims.username,
      credential: claims.type === 'app' ? 'app_token' : 'access_token',
      jti: claims.jti,
      email: claims.username,
    };
  }

  async function machineCaller(request: FastifyRequest, token: string): Promise<MachineCaller> {
    // Not request.em: a cached token needs no fork, and an uncached one is looked up across orgs.
    const check = await auth.machineTokens.verify(request.server.quad, token);
    if (!check.ok) throw unauthorized(check.why === 'unknown' ? 'Invalid token' : `Token ${check.why}`, `token_${check.why === 'unknown' ? 'invalid' : check.why}`);
    const t = check.token;
    return { kind: 'machine', actor: `machine:${t.id}`, credential: 'machine_token', token: t, orgId: t.organization.id, scopes: t.scopes };
  }

  async function idpCaller(token: string): Promise<IdpCaller> {
    try {
      const identity = await auth.idp.verify(token);
      return { kind: 'idp', actor: `idp:${identity.userId}`, credential: 'idp_token', userId: identity.userId, email: identity.email };
    } catch (err) {
      if (err instanceof IdpTokenInvalid) {
        if (err.reason === 'expired') throw new HttpError(403, 'Identity token expired; refresh it', 'token_expired');
        throw unauthorized('Invalid token', 'invalid_token');
      }
      throw err; // IdpUnavailable: the error handler's 503 idp_unavailable
    }
  }

  function requireBearer(request: FastifyRequest): string {
    const token = bearerToken(request);
    if (!token) throw unauthorized();
    return token;
  }

  const setCaller = (request: FastifyRequest) => (caller: OfficerCaller | IdpCaller) => {
    request.caller = caller;
  };

  /** auth_required: our JWTs only; a machine token (not a JWT) is 401. */
  function authenticateOfficer(request: FastifyRequest): MaybePromise<void> {
    const token = requireBearer(request);
    if (token.startsWith(MACHINE_TOKEN_PREFIX)) throw unauthorized('Machine tokens are not accepted here', 'machine_token_not_accepted');
    return andThen(platformCaller(request, token), setCaller(request));
  }

  /** The caller (an officer or superadmin) may act on the org in the URL. */
  function authorizeOrgOfficer(request: FastifyRequest): MaybePromise<void> {
    if (!request.org) return;
    const caller = request.caller as OfficerCaller | IdpCaller;
    const credential = credentialOf(caller);
    if (caller.kind !== 'officer') return auth.access.deny(request, 'no_discord_id', credential);
    if (auth.access.isSuperadmin(caller.chatUserId)) return;
    const org = request.org;
    return auth.access.check(request, credential, 'not_org_officer', () => auth.access.isOfficer(org, caller.chatUserId));
  }

  function authenticateDual(request: FastifyRequest): MaybePromise<void> {
    const token = requireBearer(request);
    if (token.startsWith(MACHINE_TOKEN_PREFIX)) throw unauthorized('Machine tokens are not accepted here', 'machine_token_not_accepted');
    return andThen(issuerOf(token) === ISSUER ? platformCaller(request, token) : idpCaller(token), setCaller(request));
  }

  /** machine_scope_required, in the spec's order: 401 token, 403 scope, 403 org. */
  async function authenticateMachine(request: FastifyRequest, scope: string | undefined) {
    const token = requireBearer(request);
    if (!token.startsWith(MACHINE_TOKEN_PREFIX)) throw unauthorized('A machine token is required', 'machine_token_required');
    const caller = await machineCaller(request, token);
    if (scope && !caller.scopes.includes(scope)) throw forbidden(`This token lacks the scope ${scope}`, 'missing_scope');
    request.caller = caller;
  }

  async function authorizeMachineOrg(request: FastifyRequest) {
    const caller = request.caller as MachineCaller;
    if (request.org && request.org.id !== caller.orgId) throw forbidden('This token belongs to another org', 'wrong_org');
  }

  function sessionCaller(request: FastifyRequest): MemberCaller {
    const session = readSession(request);
    if (session.status === 'bad') throw unauthorized('Invalid or expired session', 'invalid_session');
    if (session.status === 'none' || !session.data.chat_user_id) throw unauthorized('Sign in with Discord first', 'no_session');
    const { chat_user_id, username } = session.data;
    return { kind: 'member', actor: `member:${chat_user_id}`, credential: 'session', chatUserId: chat_user_id, username: username ?? null };
  }

  function authorizeMember(request: FastifyRequest): MaybePromise<void> {
    if (!request.org) return;
    const caller = request.caller as MemberCaller;
    const org = request.org;
    return auth.access.check(request, 'session', 'not_member', () => auth.access.isMember(org, caller.chatUserId));
  }

  const handlers: Record<string, PolicyHandler> = {
    officer: { authenticate: authenticateOfficer, authorize: authorizeOrgOfficer },
    dual: { authenticate: authenticateDual },
    orgOfficer: { authenticate: authenticateDual, authorize: authorizeOrgOfficer },
    superadmin: {
      authenticate: authenticateOfficer,
      async authorize(request) {
        const caller = request.caller as OfficerCaller;
        // Superadmin routes ignore ACCESS_ENFORCE: everyone else is refused.
        if (!auth.access.isSuperadmin(caller.chatUserId)) auth.access.deny(request, 'not_superadmin', caller.credential, { always: true });
        const bot = await auth.bot.health();
        // The bot's error names Discord's answer (or an address): the error handler logs it and answers the fixed 503.
        if (!bot.available) throw new DiscordUnavailable(bot.error ?? 'The Discord bot is unavailable');
      },
    },
    member: {
      authenticate(request) {
        request.caller = sessionCaller(request);
      },
      authorize: authorizeMember,
    },
    memberOrCli: {
      async authenticate(request) {
        const token = bearerToken(request);
        if (token) return authenticateMachine(request, CLI_SCOPE);
        request.caller = sessionCaller(request);
      },
      async authorize(request) {
        if (request.caller?.kind !== 'machine') return authorizeMember(request);
        await authorizeMachineOrg(request);
        // A CLI token speaks for one member, who must still be on the org's server (like a session's member).
        const { token } = request.caller as MachineCaller;
        if (token.kind !== 'cli' || !token.memberChatUserId) throw forbidden('Only a member\'s CLI token is accepted here', 'cli_token_required');
        const org = request.org;
        if (org) await auth.access.check(request, 'machine_token', 'not_member', () => auth.access.isMember(org, token.memberChatUserId!));
      },
    },
    machine: { authenticate: authenticateMachine, authorize: authorizeMachineOrg },
    officerOrMachine: {
      async authenticate(request, scope) {
        const token = bearerToken(request);
        return token?.startsWith(MACHINE_TOKEN_PREFIX) ? authenticateMachine(request, scope) : authenticateOfficer(request);
      },
      async authorize(request) {
        return request.caller?.kind === 'machine' ? authorizeMachineOrg(request) : authorizeOrgOfficer(request);
      },
    },
  };
  return { handlers, platformCaller, idpCaller };
}

export function registerAuthPolicies(policies: AuthPolicies, auth: AuthServices) {
  const { handlers } = createPolicies(auth);
  for (const [name, handler] of Object.entries(handlers)) policies.register(name as never, handler);
}
