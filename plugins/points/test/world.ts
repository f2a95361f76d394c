// A signed-in world for the points and store tests: the core with both plugins, a fake Discord (an officer and
// a member of the org's server), a fake identity provider, and the credentials of each kind of caller.
import type { FastifyBaseLogger, LightMyRequestResponse } from 'fastify';
import { startFakeIdp, type FakeIdp } from '../../../test/fakes/idp/index.js';
import { bearer, cookieFrom, signInOfficer, startSignInWorld, type SignInWorld } from '../../../test/support/sign-in.js';
import type { FakeUser } from '../../../test/fakes/discord/index.js';
import type { TeardownHost } from '@quad/core/testing';

export interface PointsWorld extends SignInWorld {
  idp: FakeIdp;
  /** The officer's access token. */
  officerToken: string;
  /** The member's Discord session cookie (name=value). */
  memberCookie: string;
  /** A Discord session for any user of the fake. */
  sessionOf(user: FakeUser): Promise<string>;
  /** An identity-provider token for an email (the fake IdP user is made on first use). */
  idpToken(email: string): Promise<string>;
  /** Raw SQL on the test database. */
  sql<T = Record<string, any>>(query: string, params?: unknown[]): Promise<T[]>;
  /** The users.id of an email or chat user id, created when missing. */
  userId(ref: { email?: string; chatUserId?: string }): Promise<number>;
  /** Give a member points directly in the ledger. */
  grant(userId: number, amount: number, orgId?: number): Promise<void>;
  balance(userId: number, orgId?: number): Promise<number>;
  call(opts: { method?: string; url: string; token?: string; cookie?: string; body?: unknown }): Promise<LightMyRequestResponse>;
  /** An access token of an officer of another org ("other", with both modules on). */
  strangerOfficerToken(): Promise<string>;
}

export interface PointsWorldOptions {
  enforce?: boolean;
  logger?: FastifyBaseLogger;
  config?: Record<string, unknown>;
  modules?: Record<string, boolean>;
}

export async function startPointsWorld(t: TeardownHost, options: PointsWorldOptions = {}): Promise<PointsWorld> {
  const idp = await startFakeIdp();
  t.teardown(() => idp.close());
  const world = await startSignInWorld(t, {
    plugins: ['./plugins/points', './plugins/store'],
    orgModules: options.modules ?? { points: true, store: true },
    logger: options.logger,
    config: {
      ACCESS_ENFORCE: options.enforce ?? true,
      IDP_API_URL: idp.url, IDP_SECRET_KEY: idp.secretKey, IDP_AUTHORIZED_PARTIES: [idp.defaultAzp],
      POINTS_GATEWAY: false,
      ...options.config,
    },
  });
  const { quad, discord } = world;
  const sql = async <T>(query: string, params: unknown[] = []) => (await quad.orm.em.fork().getConnection().execute(query, params as never[])) as T[];

  async function sessionOf(user: FakeUser): Promise<string> {
    const start = await quad.api.inject('/api/accounts/chat/login');
    discord.signInAs(user.id);
    const back = new URL((await fetch(start.headers.location as string, { redirect: 'manual' })).headers.get('location')!);
    const callback = await quad.api.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: cookieFrom(start) } });
    if (callback.statusCode !== 200) throw new Error(`member sign-in answered ${callback.statusCode}: ${callback.body}`);
    return cookieFrom(callback);
  }

  const idpUsers = new Map<string, string>();
  async function idpToken(email: string): Promise<string> {
    let id = idpUsers.get(email);
    if (!id) {
      id = idp.addUser({ emails: [email] }).id;
      idpUsers.set(email, id);
    }
    return idp.issueToken(id, { expiresIn: 3600 });
  }

  async function userId(ref: { email?: string; chatUserId?: string }): Promise<number> {
    if (ref.email) {
      await sql('insert into users (email) values (?) on conflict (email) do nothing', [ref.email.toLowerCase()]);
      return (await sql<{ id: number }>('select id from users where email = ?', [ref.email.toLowerCase()]))[0]!.id;
    }
    await sql('insert into users (chat_user_id) values (?) on conflict (chat_user_id) do nothing', [ref.chatUserId]);
    return (await sql<{ id: number }>('select id from users where chat_user_id = ?', [ref.chatUserId]))[0]!.id;
  }

  const officerToken = (await signInOfficer(world, world.officer.id)).access_token;
  const memberCookie = await sessionOf(world.member);
  return {
    ...world,
    idp,
    officerToken,
    memberCookie,
    sessionOf,
    idpToken,
    sql,
    userId,
    async strangerOfficerToken() {
      const guild = discord.addGuild({ name: 'Other' });
      const role = discord.addRole(guild.id, { name: 'Officers' });
      const stranger = discord.addUser({ username: 'mallory' });
      discord.addMember(guild.id, stranger.id, [role.id]);
      await quad.createOrg({ prefix: 'other', discordGuildId: guild.id, officerRoleId: role.id, modules: { points: true, store: true } });
      return (await signInOfficer(world, stranger.id)).access_token;
    },
    async grant(user, amount, orgId = world.org.id) {
      await sql(`insert into points_entries (organization_id, user_id, amount, source, reason, awarded_by) values (?, ?, ?, 'award', 'test grant', 'system')`, [orgId, user, amount]);
    },
    async balance(user, orgId = world.org.id) {
      const [row] = await sql<{ b: string }>('select coalesce(sum(amount), 0) as b from points_entries where organization_id = ? and user_id = ?', [orgId, user]);
      return Number(row!.b);
    },
    call({ method = 'GET', url, token, cookie, body }) {
      const headers: Record<string, string> = { ...(token && bearer(token)), ...(cookie && { cookie }) };
      return quad.api.inject({ method: method as 'GET', url, headers, ...(body !== undefined && (typeof body === 'string' ? { payload: body } : { payload: body as object })) });
    },
  };
}
