// The member session cookie is encrypted (not only signed): nothing in it is readable, a changed byte or a cookie
// made with another key is refused as invalid_session, and so is one whose session has expired.
import t from 'tap';
import Fastify from 'fastify';
import secureSession from '@fastify/secure-session';
import probe from '../fixtures/probe-module.js';
import { cookieFrom, startSignInWorld, type SignInWorld } from '../support/sign-in.js';
import { SESSION_COOKIE, sessionPluginOptions } from '../../core/src/auth/session.js';

async function memberCallback(world: SignInWorld, userId: string) {
  const start = await world.quad.api.inject('/api/accounts/chat/login');
  world.discord.signInAs(userId);
  const back = new URL((await fetch(start.headers.location as string, { redirect: 'manual' })).headers.get('location')!);
  return world.quad.api.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: cookieFrom(start) } });
}

/** A session cookie as another server with `secretKey` would make it. */
async function cookieMadeWith(secretKey: string, data: Record<string, unknown>): Promise<string> {
  const app = Fastify();
  await app.register(secureSession, sessionPluginOptions(secretKey));
  await app.ready();
  const value = app.encodeSecureSession(app.createSecureSession({ quad: data }));
  await app.close();
  return `${SESSION_COOKIE}=${encodeURIComponent(value)}`;
}

t.test('session cookie', async (t) => {
  const world = await startSignInWorld(t, { plugins: [probe], orgModules: { probe: true }, config: { ACCESS_ENFORCE: true } });
  const member = world.discord.addUser({ username: 'grace-hopper' });
  world.discord.addMember(world.guildId, member.id, []);
  const get = (cookie: string) => world.quad.api.inject({ url: '/api/probe/acm/member', headers: { cookie } });

  const callback = await memberCallback(world, member.id);
  t.equal(callback.statusCode, 200);
  const setCookie = String(callback.headers['set-cookie']);
  t.match(setCookie, /quad_session=.*Max-Age=1209600.*Path=\/.*HttpOnly.*SameSite=Lax/);
  const cookie = cookieFrom(callback);
  t.equal((await get(cookie)).statusCode, 200, 'the session works');

  t.test('nothing inside is readable', async (t) => {
    const value = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
    for (const text of [value, ...value.split(/[.;]/).flatMap((part) => [Buffer.from(part, 'base64').toString('latin1'), Buffer.from(part, 'base64url').toString('latin1')])]) {
      t.notOk(text.includes(member.id), 'no chat user id');
      t.notOk(text.includes('grace-hopper'), 'no username');
      t.notOk(text.includes('expires'), 'no field names');
    }
  });

  t.test('a changed byte, another key, an expired session: 401 invalid_session', async (t) => {
    const value = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
    const flipped = value.slice(0, 5) + (value[5] === 'A' ? 'B' : 'A') + value.slice(6);
    const forgeries = {
      'a changed byte': `${SESSION_COOKIE}=${encodeURIComponent(flipped)}`,
      'another key': await cookieMadeWith('another-secret-key-of-at-least-32-characters', { chat_user_id: member.id, expires: Date.now() + 3600_000 }),
      'an expired session': await cookieMadeWith(world.quad.api.auth.secretKey, { chat_user_id: member.id, expires: Date.now() - 1000 }),
      'not a session at all': `${SESSION_COOKIE}=forged`,
    };
    for (const [label, forged] of Object.entries(forgeries)) {
      const res = await get(forged);
      t.equal(res.statusCode, 401, label);
      t.equal(res.json().reason, 'invalid_session', label);
    }
    const fresh = await cookieMadeWith(world.quad.api.auth.secretKey, { chat_user_id: member.id, expires: Date.now() + 3600_000 });
    t.equal((await get(fresh)).statusCode, 200, 'the key is derived from SECRET_KEY alone: another process with it reads the cookie');
  });
});
