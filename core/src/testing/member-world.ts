// A signed-in world with members, for tests of modules that serve members and officers: the core with the chosen
// plugins, a fake Discord (an officer and a member of the org's server), a fake identity provider, and the
// credentials of each kind of caller.
import type { FastifyBaseLogger, LightMyRequestResponse } from 'fastify';
import { startFakeIdp, type FakeIdp, type FakeUser } from './fakes.js';
import { bearer, cookieFrom, signInOfficer, startSignInWorld, type SignInWorld } from './sign-in.js';
import type { Module } from '../modules/types.js';
import type { TeardownHost } from './test-app.js';

export interface MemberWorld extends SignInWorld {
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
  call(opts: { method?: string; url: string; token?: string; cookie?: string; body?: unknown }): Promise<LightMyRequestResponse>;
  /** An access token of an officer of another org (prefix `other`, with the same modules on). */
  strangerOfficerToken(): Promise<string>;
}

export interface MemberWorldOptions {
  /** Plugins by path (relative to the repo root), package name or manifest. */
  plugins: (string | Module)[];
  /** Modules on for the org (and for the stranger's org). */
  orgModules: Record<string, boolean>;
  /** ACCESS_ENFORCE. Default: true. */
  enforce?: boolean;
  logger?: FastifyBaseLogger;
  config?: Record<string, unknown>;
  /** Serve the API on a loopback port (`quad.url`), for clients in other processes. */
  listen?: boolean;
}

export async function startMemberWorld(t: TeardownHost, options: MemberWorldOptions): Promise<MemberWorld> {
  const idp = await startFakeIdp();
  t.teardown(() => idp.close());
  const world = await startSignInWorld(t, {
    plugins: options.plugins,
    orgModules: options.orgModules,
    logger: options.logger,
    listen: options.listen,
    config: {
      ACCESS_ENFORCE: options.enforce ?? true,
      IDP_API_URL: idp.url, IDP_SECRET_KEY: idp.secretKey, IDP_AUTHORIZED_PARTIES: [idp.defaultAzp],
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
      await quad.createOrg({ prefix: 'other', discordGuildId: guild.id, officerRoleId: role.id, modules: options.orgModules });
      return (await signInOfficer(world, stranger.id)).access_token;
    },
    call({ method = 'GET', url, token, cookie, body }) {
      const headers: Record<string, string> = { ...(token && bearer(token)), ...(cookie && { cookie }) };
      return quad.api.inject({ method: method as 'GET', url, headers, ...(body !== undefined && (typeof body === 'string' ? { payload: body } : { payload: body as object })) });
    },
  };
}
