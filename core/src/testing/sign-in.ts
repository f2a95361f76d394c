// A signed-in world for tests: a fake Discord with a server, an officer role and an org bound to it, a Quad
// configured against the fake, and helpers that sign in through the real OAuth flow like a browser would.
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp, type TestAppOptions, type TeardownHost } from './test-app.js';
import type { OrganizationEntity } from '../entities/organization.js';
import { startFakeDiscord, type FakeDiscord, type FakeUser } from './fakes.js';

export const REDIRECT_URI = 'http://quad.test/api/auth/callback';
export const DASHBOARD_URL = 'https://dashboard.quad.test';
export const CLIENT_URL = 'https://app.quad.test';

export interface SignInWorld {
  quad: TestApp;
  discord: FakeDiscord;
  org: OrganizationEntity;
  guildId: string;
  officerRoleId: string;
  officer: FakeUser;
  /** A member of the server without the officer role. */
  member: FakeUser;
  /** The Discord settings the world's Quad uses, for starting more processes on the same database. */
  discordConfig: Record<string, unknown>;
}

export function discordSettings(discord: FakeDiscord): Record<string, unknown> {
  return {
    CLIENT_ID: discord.clientId,
    CLIENT_SECRET: discord.clientSecret,
    BOT_TOKEN: discord.botToken,
    REDIRECT_URI,
    DISCORD_API_URL: discord.url,
    DISCORD_AUTHORIZE_URL: `${discord.url}/oauth2/authorize`,
    DASHBOARD_URL,
    CLIENT_URL,
  };
}

export async function startSignInWorld(t: TeardownHost, options: TestAppOptions & { orgModules?: Record<string, boolean> } = {}): Promise<SignInWorld> {
  const discord = await startFakeDiscord();
  t.teardown(() => discord.close());
  const discordConfig = discordSettings(discord);
  const quad = await startTestApp(t, { ...options, config: { ...discordConfig, ...options.config } });
  const guild = discord.addGuild({ name: 'ACM Server' });
  const role = discord.addRole(guild.id, { name: 'Officers' });
  const officer = discord.addUser({ username: 'ada', global_name: 'Ada Lovelace' });
  const member = discord.addUser({ username: 'bob' });
  discord.addMember(guild.id, officer.id, [role.id]);
  discord.addMember(guild.id, member.id, []);
  const org = await quad.createOrg({ prefix: 'acm', discordGuildId: guild.id, officerRoleId: role.id, modules: options.orgModules });
  return { quad, discord, org, guildId: guild.id, officerRoleId: role.id, officer, member, discordConfig };
}

/** The cookie pair (name=value) a response sets, to send back like a browser. */
export function cookieFrom(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  const first = Array.isArray(header) ? header[0] : header;
  if (!first) throw new Error(`no Set-Cookie in ${res.statusCode} response`);
  return first.split(';')[0];
}

export interface OfficerLogin {
  /** Where the callback sent the browser. */
  location: string;
  code: string | null;
  error: string | null;
}

/** GET /api/auth/login → Discord's authorize page (the fake signs in as `userId`) → GET /api/auth/callback. */
export async function officerLogin(world: Pick<SignInWorld, 'quad' | 'discord'>, userId: string, client?: 'dashboard'): Promise<OfficerLogin> {
  const { quad, discord } = world;
  const start = await quad.api.inject({ url: `/api/auth/login${client ? `?client=${client}` : ''}` });
  if (start.statusCode !== 302) throw new Error(`login answered ${start.statusCode}: ${start.body}`);
  const cookie = cookieFrom(start);
  discord.signInAs(userId);
  const authorize = await fetch(start.headers.location as string, { redirect: 'manual' });
  const back = new URL(authorize.headers.get('location')!);
  const callback = await quad.api.inject({ url: `${back.pathname}${back.search}`, headers: { cookie } });
  if (callback.statusCode !== 302) throw new Error(`callback answered ${callback.statusCode}: ${callback.body}`);
  const location = callback.headers.location as string;
  const url = new URL(location);
  return { location, code: url.searchParams.get('code'), error: url.searchParams.get('error') };
}

export interface TokenPair { access_token: string; refresh_token: string }

/** Sign in through the whole flow and exchange the code: an officer's token pair. */
export async function signInOfficer(world: Pick<SignInWorld, 'quad' | 'discord'>, userId: string): Promise<TokenPair> {
  const login = await officerLogin(world, userId);
  if (!login.code) throw new Error(`sign-in refused: ${login.location}`);
  const res = await world.quad.api.inject({ method: 'POST', url: '/api/auth/exchange', payload: { code: login.code } });
  if (res.statusCode !== 200) throw new Error(`exchange answered ${res.statusCode}: ${res.body}`);
  return res.json();
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
