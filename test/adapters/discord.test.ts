// Discord adapter against the fake Discord: every client method, OAuth round trip, member vs not-a-member vs
// unavailable, rate limits, paging, helpers, and that no secret ever shows up in an error message.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import {
  DiscordClient, DiscordRequestError, DiscordUnavailable, displayName, isDiscordWebhookUrl, type DiscordSettings,
} from '../../core/src/adapters/discord/index.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';

// Every error the adapter throws in this file, and every secret it held, for the final no-leak check.
const caught: Error[] = [];
const secrets = new Set<string>();

async function failure<E extends Error>(p: Promise<unknown>, cls: new (...args: never[]) => E): Promise<E> {
  try {
    await p;
  } catch (err) {
    if (err instanceof Error) caught.push(err);
    if (!(err instanceof cls)) throw new Error(`expected ${cls.name}, got ${String(err)}`);
    return err;
  }
  throw new Error(`expected ${cls.name}, but the call succeeded`);
}

async function setup(t: Test, settings: Partial<DiscordSettings> = {}) {
  const fake = await startFakeDiscord();
  t.teardown(() => fake.close());
  secrets.add(fake.botToken).add(fake.clientSecret);
  const client = new DiscordClient({
    apiUrl: fake.url, authorizeUrl: `${fake.url}/oauth2/authorize`,
    clientId: fake.clientId, clientSecret: fake.clientSecret, botToken: fake.botToken, ...settings,
  });
  return { fake, client };
}

function seed(fake: FakeDiscord) {
  const guild = fake.addGuild({ name: 'Robotics Club', icon: 'abc123' });
  const officer = fake.addRole(guild.id, { name: 'Officer', color: 0xff0000 });
  const member = fake.addRole(guild.id, { name: 'Member' });
  const ada = fake.addUser({ username: 'ada', global_name: 'Ada Lovelace' });
  const alan = fake.addUser({ username: 'alan' });
  const grace = fake.addUser({ username: 'grace', global_name: 'Grace' });
  const stranger = fake.addUser({ username: 'stranger' });
  fake.addMember(guild.id, ada.id, [officer.id, member.id]);
  fake.addMember(guild.id, alan.id, [member.id], 'Turing');
  fake.addMember(guild.id, grace.id, []);
  return { guild, roles: { officer, member }, users: { ada, alan, grace, stranger } };
}

const requestsTo = (fake: FakeDiscord, path: string) => fake.requests.filter((r) => r.path === path);

t.test('displayName: nick, then global_name, then username', async (t) => {
  t.equal(displayName({ nick: 'Nick', user: { global_name: 'Global', username: 'user' } }), 'Nick');
  t.equal(displayName({ nick: null, user: { global_name: 'Global', username: 'user' } }), 'Global');
  t.equal(displayName({ nick: '', user: { global_name: null, username: 'user' } }), 'user');
  t.equal(displayName({ user: { username: 'user' } }), 'user');
});

t.test('isDiscordWebhookUrl', async (t) => {
  const yes = [
    'https://discord.com/api/webhooks/123456789012345678/AbC-def_123',
    'https://discordapp.com/api/webhooks/123456789012345678/AbC-def_123',
    'https://discord.com/api/v10/webhooks/123456789012345678/AbC-def_123',
  ];
  const no = [
    'http://discord.com/api/webhooks/123456789012345678/tok',
    'https://example.com/api/webhooks/123456789012345678/tok',
    'https://discord.com.evil.example/api/webhooks/123456789012345678/tok',
    'https://evil.example/discord.com/api/webhooks/123456789012345678/tok',
    'https://user:pass@discord.com/api/webhooks/123456789012345678/tok',
    'https://discord.com@evil.example/api/webhooks/123456789012345678/tok',
    'https://discord.com:443/api/webhooks/123456789012345678/tok',
    'https://discord.com:8443/api/webhooks/123456789012345678/tok',
    'https://discord.com/webhooks/123456789012345678/tok',
    'https://discord.com/api/webhooks/abc/tok',
    'https://discord.com/api/webhooks/123456789012345678/',
    'https://discord.com/api/webhooks/123456789012345678/tok/slack',
    'https://discord.com/api/webhooks/123456789012345678/tok?x=1',
    'https://discord.com/api/webhooks/123456789012345678/tok#frag',
    'https://discord.com/api/webhooks/123456789012345678/../../users/@me',
    ' https://discord.com/api/webhooks/123456789012345678/tok',
    'https://ptb.discord.com.example/api/webhooks/1/tok',
    '',
  ];
  for (const u of yes) t.ok(isDiscordWebhookUrl(u), u);
  for (const u of no) t.notOk(isDiscordWebhookUrl(u), u);
});

t.test('authorizeRedirect builds the sign-in URL', async (t) => {
  const { fake, client } = await setup(t);
  const url = new URL(client.authorizeRedirect({ redirectUri: 'https://quad.example/auth/callback?x=1', state: 's t&ate' }));
  t.equal(`${url.origin}${url.pathname}`, `${fake.url}/oauth2/authorize`);
  t.equal(url.searchParams.get('client_id'), fake.clientId);
  t.equal(url.searchParams.get('redirect_uri'), 'https://quad.example/auth/callback?x=1');
  t.equal(url.searchParams.get('response_type'), 'code');
  t.equal(url.searchParams.get('scope'), 'identify guilds');
  t.equal(url.searchParams.get('state'), 's t&ate');
  t.match(url.search, /scope=identify%20guilds/, 'scopes joined with %20');
  const custom = new URL(client.authorizeRedirect({ redirectUri: 'https://q/cb', state: 'x', scope: 'identify' }));
  t.equal(custom.searchParams.get('scope'), 'identify');

  const noClient = new DiscordClient({ apiUrl: fake.url, authorizeUrl: `${fake.url}/oauth2/authorize` });
  t.throws(() => noClient.authorizeRedirect({ redirectUri: 'https://q/cb', state: 'x' }), DiscordUnavailable);
});

t.test('OAuth round trip: authorize → code → exchangeCode → currentUser', async (t) => {
  const { fake, client } = await setup(t);
  const ada = fake.addUser({ username: 'ada', global_name: 'Ada Lovelace', avatar: 'a1' });
  const redirectUri = 'http://127.0.0.1:1/auth/discord/callback';

  const denied = await fetch(client.authorizeRedirect({ redirectUri, state: 'st' }), { redirect: 'manual' });
  t.equal(denied.status, 400, 'nobody signed in to the fake');

  fake.signInAs(ada.id);
  const res = await fetch(client.authorizeRedirect({ redirectUri, state: 'state-123' }), { redirect: 'manual' });
  t.equal(res.status, 302);
  const back = new URL(res.headers.get('location')!);
  t.equal(`${back.origin}${back.pathname}`, redirectUri);
  t.equal(back.searchParams.get('state'), 'state-123');
  const code = back.searchParams.get('code')!;
  t.ok(code);
  secrets.add(code);

  const tokens = await client.exchangeCode(code, redirectUri);
  secrets.add(tokens.access_token).add(tokens.refresh_token);
  t.equal(tokens.token_type, 'Bearer');
  t.equal(tokens.scope, 'identify guilds');
  t.type(tokens.expires_in, 'number');
  t.ok(tokens.refresh_token);
  const tokenReq = requestsTo(fake, '/oauth2/token').at(-1)!;
  t.equal(tokenReq.method, 'POST');
  t.match(tokenReq.headers['content-type'], /^application\/x-www-form-urlencoded/);

  const me = await client.currentUser(tokens.access_token);
  t.same(me, { id: ada.id, username: 'ada', global_name: 'Ada Lovelace', avatar: 'a1' });
  t.equal(requestsTo(fake, '/users/@me').at(-1)!.headers.authorization, `Bearer ${tokens.access_token}`);

  const reused = await failure(client.exchangeCode(code, redirectUri), DiscordRequestError);
  t.equal(reused.status, 400, 'a code works once');
  t.match(reused.message, /invalid_grant/);

  const code2 = fake.issueCode(ada.id, redirectUri);
  secrets.add(code2);
  t.equal((await failure(client.exchangeCode(code2, 'http://127.0.0.1:1/other'), DiscordRequestError)).status, 400, 'code bound to its redirect_uri');
  t.ok((await client.exchangeCode(code2, redirectUri)).access_token, 'the failed attempt did not burn the code');

  const wrongSecret = new DiscordClient({ apiUrl: fake.url, authorizeUrl: '', clientId: fake.clientId, clientSecret: 'wrong-client-secret-xyz' });
  secrets.add('wrong-client-secret-xyz');
  const code3 = fake.issueCode(ada.id, redirectUri);
  secrets.add(code3);
  t.equal((await failure(wrongSecret.exchangeCode(code3, redirectUri), DiscordRequestError)).status, 401);

  const noSecret = new DiscordClient({ apiUrl: fake.url, authorizeUrl: '', clientId: fake.clientId });
  await failure(noSecret.exchangeCode(code3, redirectUri), DiscordUnavailable);

  secrets.add('not-a-real-user-token');
  const badUser = await failure(client.currentUser('not-a-real-user-token'), DiscordRequestError);
  t.equal(badUser.status, 401);
});

t.test('member: a member, not a member, and the errors that are not "not a member"', async (t) => {
  const { fake, client } = await setup(t);
  const { guild, roles, users } = seed(fake);

  const ada = await client.member(guild.id, users.ada.id);
  t.same(ada, {
    user: { id: users.ada.id, username: 'ada', global_name: 'Ada Lovelace', avatar: null },
    nick: null, roles: [roles.officer.id, roles.member.id], joined_at: ada!.joined_at,
  });
  t.ok(!Number.isNaN(Date.parse(ada!.joined_at)));
  const req = requestsTo(fake, `/guilds/${guild.id}/members/${users.ada.id}`)[0]!;
  t.equal(req.headers.authorization, `Bot ${fake.botToken}`);
  t.equal(req.headers['user-agent'], 'DiscordBot (quad, 0.1)');

  const alan = await client.member(guild.id, users.alan.id);
  t.equal(alan!.nick, 'Turing');
  t.equal(displayName(alan!), 'Turing');

  t.equal(await client.member(guild.id, users.stranger.id), null, 'Unknown Member is null');

  fake.setRoles(guild.id, users.ada.id, [roles.member.id]);
  t.same((await client.member(guild.id, users.ada.id))!.roles, [roles.member.id]);
  fake.removeMember(guild.id, users.ada.id);
  t.equal(await client.member(guild.id, users.ada.id), null);

  const unknownGuild = await failure(client.member('999', users.alan.id), DiscordRequestError);
  t.equal(unknownGuild.status, 404);
  t.equal(unknownGuild.code, 10004, 'a 404 that is not Unknown Member is not null');

  await t.rejects(client.member('../users/@me', users.alan.id), TypeError);
  await t.rejects(client.member(guild.id, '1/../../x'), TypeError, 'ids must be digits');
});

t.test('unavailable: no bot token, wrong token, down, timeout, refused', async (t) => {
  const { fake, client } = await setup(t);
  const { guild, users } = seed(fake);
  t.equal(client.hasBot, true);

  const noBot = new DiscordClient({ apiUrl: fake.url, authorizeUrl: '' });
  t.equal(noBot.hasBot, false);
  const before = fake.requests.length;
  await failure(noBot.member(guild.id, users.ada.id), DiscordUnavailable);
  await failure(noBot.roles(guild.id), DiscordUnavailable);
  await failure(noBot.botGuilds(), DiscordUnavailable);
  await failure(noBot.postMessage('1', { content: 'x' }), DiscordUnavailable);
  t.equal(fake.requests.length, before, 'no request without a bot token');

  secrets.add('wrong-bot-token.XYZ');
  const wrongBot = new DiscordClient({ apiUrl: fake.url, authorizeUrl: '', botToken: 'wrong-bot-token.XYZ' });
  const unauthorized = await failure(wrongBot.member(guild.id, users.ada.id), DiscordRequestError);
  t.equal(unauthorized.status, 401);
  t.equal(unauthorized.code, 0);

  fake.down(true);
  const down = await failure(client.member(guild.id, users.ada.id), DiscordUnavailable);
  t.match(down.message, /502/);
  await failure(client.roles(guild.id), DiscordUnavailable);
  fake.down(false);
  t.ok(await client.member(guild.id, users.ada.id), 'back up');

  const quick = new DiscordClient({ apiUrl: fake.url, authorizeUrl: '', botToken: fake.botToken, timeoutMs: 100 });
  fake.delayNext(1000);
  const started = Date.now();
  const slow = await failure(quick.member(guild.id, users.ada.id), DiscordUnavailable);
  t.match(slow.message, /timed out after 100 ms/);
  t.ok(Date.now() - started < 900, 'gave up at the timeout');
  // Asked with the default timeout: 100 ms is too tight for a loaded machine, and the point is the delay is gone.
  t.ok(await client.member(guild.id, users.ada.id), 'the delay applied to one request only');

  // A port nobody listens on.
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const refused = new DiscordClient({ apiUrl: `http://127.0.0.1:${port}`, authorizeUrl: '', botToken: fake.botToken });
  t.match((await failure(refused.member(guild.id, users.ada.id), DiscordUnavailable)).message, /ECONNREFUSED/);
});

// Rate limits go through @discordjs/rest: it reads the fake's X-RateLimit-* headers like Discord's. Our policy on
// top: one retry of a 429 whose wait is short, then DiscordUnavailable (503 bot_unavailable) with Discord's wait.
t.test('rate limits: a 429 is retried once after Discord\'s wait, then the call succeeds', async (t) => {
  const { fake, client } = await setup(t);
  const { guild } = seed(fake);
  const path = `/guilds/${guild.id}/roles`;

  fake.rateLimitNext(0.05);
  const started = Date.now();
  t.equal((await client.roles(guild.id)).length, 3);
  t.ok(Date.now() - started >= 45, 'waited retry_after');
  t.equal(requestsTo(fake, path).length, 2, 'retried once');
  t.equal(fake.tooManyRequests, 1);
});

t.test('rate limits: a second 429 is DiscordUnavailable with Discord\'s wait', async (t) => {
  const { fake, client } = await setup(t);
  const { guild } = seed(fake);
  const path = `/guilds/${guild.id}/roles`;

  fake.rateLimitNext(0.01, 2);
  const twice = await failure(client.roles(guild.id), DiscordUnavailable);
  t.match(twice.message, `Discord rate-limited GET ${path}`);
  t.equal(twice.retryAfter, 0.01, 'Discord\'s retry_after, for the 503\'s Retry-After');
  t.equal(requestsTo(fake, path).length, 2, 'only one retry');
  t.equal((await client.roles(guild.id)).length, 3, 'the next call goes through once the bucket resets');
});

t.test('rate limits: a long wait is not waited for, and the spent bucket is not asked again', async (t) => {
  const { fake, client } = await setup(t);
  const { guild, users } = seed(fake);
  const path = `/guilds/${guild.id}/roles`;

  // A first answer names the route's bucket (X-RateLimit-Bucket); REST keeps the bucket's state from then on.
  t.equal((await client.roles(guild.id)).length, 3);
  // Longer than MAX_RETRY_WAIT_S (2 s), and short: REST starts its sleep to the reset before it asks whether to wait,
  // so the test process lives until then.
  fake.rateLimitNext(6);
  const long = await failure(client.roles(guild.id), DiscordUnavailable);
  t.equal(long.retryAfter, 6);
  t.equal(requestsTo(fake, path).length, 2, 'no retry on a long wait');
  const again = await failure(client.roles(guild.id), DiscordUnavailable);
  t.match(again.message, /rate-limited/);
  t.ok(again.retryAfter! > 2 && again.retryAfter! <= 6.1, `the rest of the bucket's wait (${again.retryAfter} s)`);
  t.equal(requestsTo(fake, path).length, 2, 'refused without a request while Discord said the bucket is spent');

  t.ok(await client.member(guild.id, users.ada.id), 'another route has its own bucket');
  fake.rateLimitNext(10);
  await failure(client.member(guild.id, users.alan.id), DiscordUnavailable);
  fake.rateLimitNext(10);
  await failure(client.executeWebhook(fake.addWebhook().url, { content: 'x' }), DiscordUnavailable);
  t.equal(fake.webhookPosts.length, 0);
});

t.test('rate limits: a spent bucket holds calls until it resets instead of drawing 429s', async (t) => {
  const { fake, client } = await setup(t);
  const { guild } = seed(fake);
  const path = `/guilds/${guild.id}/roles`;
  fake.limitBuckets(2, 300);

  const all = await Promise.all(Array.from({ length: 6 }, () => client.roles(guild.id)));
  t.same(all.map((roles) => roles.length), [3, 3, 3, 3, 3, 3]);
  t.equal(requestsTo(fake, path).length, 6);
  t.equal(fake.tooManyRequests, 0, 'each call waited for X-RateLimit-Reset-After once Remaining was 0');

  const hook = fake.addWebhook();
  await Promise.all(Array.from({ length: 5 }, (_, i) => client.executeWebhook(hook.url, { content: `n${i}` })));
  t.equal(fake.webhookPosts.length, 5);
  t.equal(fake.tooManyRequests, 0, 'a webhook has its bucket too');
});

t.test('a call waits in its bucket\'s queue at most two timeouts and one rate-limit wait', async (t) => {
  const { fake } = await setup(t);
  const { guild } = seed(fake);
  const quick = new DiscordClient({ apiUrl: fake.url, authorizeUrl: '', botToken: fake.botToken, timeoutMs: 100 });
  // One queue per bucket: 30 calls that each time out after 100 ms cannot all be served within 2.2 s.
  fake.delayNext(1000, 30);
  const results = await Promise.allSettled(Array.from({ length: 30 }, () => quick.roles(guild.id)));
  const errors = results.map((r) => (r.status === 'rejected' ? r.reason as Error : null));
  t.ok(errors.every((e) => e instanceof DiscordUnavailable), 'every call is DiscordUnavailable');
  caught.push(...errors.filter((e): e is Error => e !== null));
  t.ok(errors.some((e) => /timed out after 100 ms/.test(e!.message)), 'the first ones time out');
  t.ok(errors.some((e) => /did not answer GET \/guilds\/\d+\/roles within 2200 ms/.test(e!.message)), 'the last ones give up in the queue');
});

t.test('roles', async (t) => {
  const { fake, client } = await setup(t);
  const { guild, roles } = seed(fake);
  const got = await client.roles(guild.id);
  t.same(got, [
    { id: guild.id, name: '@everyone', color: 0, position: 0, managed: false },
    { id: roles.officer.id, name: 'Officer', color: 0xff0000, position: 1, managed: false },
    { id: roles.member.id, name: 'Member', color: 0, position: 2, managed: false },
  ]);
  t.equal((await failure(client.roles('424242'), DiscordRequestError)).code, 10004);
});

t.test('searchMembers: prefix of username or nick, limit default 100, clamped to 1..1000', async (t) => {
  const { fake, client } = await setup(t);
  const { guild, users } = seed(fake);
  const path = `/guilds/${guild.id}/members/search`;

  t.same((await client.searchMembers(guild.id, 'a')).map((m) => m.user.id).sort(), [users.ada.id, users.alan.id].sort());
  t.equal(requestsTo(fake, path).at(-1)!.query.limit, '100');
  t.equal(requestsTo(fake, path).at(-1)!.query.query, 'a');
  t.same((await client.searchMembers(guild.id, 'TUR')).map((m) => m.user.id), [users.alan.id], 'nickname, any case');
  t.same(await client.searchMembers(guild.id, 'zzz'), []);
  t.same(await client.searchMembers(guild.id, 'stranger'), [], 'only members');
  t.equal((await client.searchMembers(guild.id, 'a', 1)).length, 1);
  await client.searchMembers(guild.id, 'a', 5000);
  t.equal(requestsTo(fake, path).at(-1)!.query.limit, '1000');
  await client.searchMembers(guild.id, 'a', 0);
  t.equal(requestsTo(fake, path).at(-1)!.query.limit, '1');
  await client.searchMembers(guild.id, 'a b&c=d');
  t.equal(requestsTo(fake, path).at(-1)!.query.query, 'a b&c=d', 'query is encoded');
});

t.test('listMembers pages with after=<last id> until a short page', async (t) => {
  const { fake, client } = await setup(t, { pageSize: 2 });
  const guild = fake.addGuild({ name: 'G' });
  const ids = Array.from({ length: 5 }, (_, i) => fake.addUser({ username: `u${i}` }).id);
  // Added out of order: Discord sorts by user id.
  for (const id of [...ids].reverse()) fake.addMember(guild.id, id);
  const path = `/guilds/${guild.id}/members`;

  t.same((await client.listMembers(guild.id)).map((m) => m.user.id), ids);
  t.same(requestsTo(fake, path).map((r) => [r.query.limit, r.query.after]), [['2', '0'], ['2', ids[1]], ['2', ids[3]]]);

  fake.removeMember(guild.id, ids[4]!);
  fake.requests.length = 0;
  t.same((await client.listMembers(guild.id)).map((m) => m.user.id), ids.slice(0, 4));
  t.equal(requestsTo(fake, path).length, 3, 'an exact multiple ends on an empty page');

  const { client: defaults } = await setup(t);
  const other = await failure(defaults.listMembers('77'), DiscordRequestError);
  t.equal(other.code, 10004);

  const { fake: fake2, client: client2 } = await setup(t);
  const g2 = fake2.addGuild({ name: 'G2' });
  fake2.addMember(g2.id, fake2.addUser({ username: 'x' }).id);
  t.equal((await client2.listMembers(g2.id)).length, 1);
  t.equal(requestsTo(fake2, `/guilds/${g2.id}/members`)[0]!.query.limit, '1000', 'default page size');

  const noIntent = fake2.addGuild({ name: 'No intent', membersIntent: false });
  const forbidden = await failure(client2.listMembers(noIntent.id), DiscordRequestError);
  t.equal(forbidden.status, 403);
  t.equal(forbidden.code, 50001);
});

t.test('botGuilds and guild', async (t) => {
  const { fake, client } = await setup(t, { pageSize: 2 });
  const gs = [fake.addGuild({ name: 'A', icon: 'ia' }), fake.addGuild({ name: 'B' }), fake.addGuild({ name: 'C' })];
  t.same(await client.botGuilds(), gs.map((g) => ({ id: g.id, name: g.name, icon: g.icon })));
  t.same(requestsTo(fake, '/users/@me/guilds').map((r) => r.query.after), ['0', gs[1]!.id]);

  t.same(await client.guild(gs[0]!.id), { id: gs[0]!.id, name: 'A', icon: 'ia' });
  t.equal((await failure(client.guild('123'), DiscordRequestError)).status, 404);

  const { fake: f2, client: c2 } = await setup(t);
  t.same(await c2.botGuilds(), []);
  t.equal(requestsTo(f2, '/users/@me/guilds')[0]!.query.limit, '200');
});

t.test('postMessage', async (t) => {
  const { fake, client } = await setup(t);
  const body = { content: 'Hello', embeds: [{ title: 'T' }], allowed_mentions: { parse: [] } };
  const { id } = await client.postMessage('555', body);
  t.equal(fake.messages.length, 1);
  const m = fake.messages[0]!;
  t.equal(m.id, id);
  t.equal(m.channelId, '555');
  t.same(m.body, body);
  t.equal(m.headers.authorization, `Bot ${fake.botToken}`);
  t.match(m.headers['content-type'], /^application\/json/);
  t.equal(m.headers['user-agent'], 'DiscordBot (quad, 0.1)');

  const empty = await failure(client.postMessage('555', {}), DiscordRequestError);
  t.equal(empty.status, 400);
  t.equal(empty.code, 50006);
});

t.test('executeWebhook', async (t) => {
  const { fake, client } = await setup(t);
  const hook = fake.addWebhook();
  secrets.add(hook.token);
  const body = { content: 'deployed', embeds: [{ title: 'CI', fields: [{ name: 'a', value: 'b', inline: true }] }], allowed_mentions: { parse: [] } };

  t.equal(await client.executeWebhook(hook.url, body), undefined);
  t.equal(fake.webhookPosts.length, 1);
  t.same(fake.webhookPosts[0]!.body, body);
  t.equal(fake.webhookPosts[0]!.webhookId, hook.id);
  t.equal(fake.webhookPosts[0]!.headers.authorization, undefined, 'the bot token never goes to a webhook URL');

  await client.executeWebhook(`${hook.url}?wait=true`, { content: 'waited' });
  t.equal(fake.webhookPosts[1]!.wait, true, '200 with a message body is fine too');

  const noBot = new DiscordClient({ apiUrl: 'http://127.0.0.1:1', authorizeUrl: '' });
  await noBot.executeWebhook(hook.url, { content: 'no bot needed' });
  t.equal(fake.webhookPosts.length, 3);

  const unknown = await failure(client.executeWebhook(`${fake.url}/api/webhooks/1234/${hook.token}`, body), DiscordRequestError);
  t.equal(unknown.status, 404);
  t.equal(unknown.code, 10015);
  const wrongToken = 'wrong-webhook-token-abcdef';
  secrets.add(wrongToken);
  const bad = await failure(client.executeWebhook(`${fake.url}/api/webhooks/${hook.id}/${wrongToken}`, body), DiscordRequestError);
  t.equal(bad.status, 401);
  t.match(bad.message, hook.id, 'names the webhook by id');

  fake.down(true);
  await failure(client.executeWebhook(hook.url, body), DiscordUnavailable);
  fake.down(false);
  await t.rejects(client.executeWebhook('not a url', body), TypeError);
  await t.rejects(client.executeWebhook('ftp://discord.com/api/webhooks/1/x', body), TypeError);
});

t.test('error messages never carry secrets, even when Discord echoes them', async (t) => {
  // A misbehaving server that repeats the request's credentials and body in its error message.
  const echo = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', () => {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: `bad ${req.headers.authorization ?? ''} ${req.url} ${decodeURIComponent(raw)}`, code: 50035 }));
    });
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => echo.close(() => r())));
  const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  const s = { bot: 'echo-bot-token.QQQQ', secret: 'echo-client-secret-RRRR', user: 'echo-user-token-SSSS', code: 'echo-code-TTTT', hook: 'echo-webhook-token-UUUU' };
  for (const v of Object.values(s)) secrets.add(v);
  const client = new DiscordClient({ apiUrl: url, authorizeUrl: '', clientId: '1', clientSecret: s.secret, botToken: s.bot });

  const e1 = await failure(client.roles('1'), DiscordRequestError);
  t.match(e1.message, /bad Bot \*\*\*/, 'the echoed message is kept, the token scrubbed');
  t.equal(e1.code, 50035);
  await failure(client.currentUser(s.user), DiscordRequestError);
  await failure(client.exchangeCode(s.code, 'https://q/cb'), DiscordRequestError);
  await failure(client.executeWebhook(`${url}/api/webhooks/9/${s.hook}`, { content: 'x' }), DiscordRequestError);
  await failure(new DiscordClient({ apiUrl: 'http://127.0.0.1:1', authorizeUrl: '' }).executeWebhook(`http://127.0.0.1:1/api/webhooks/9/${s.hook}`, {}), DiscordUnavailable);
});

// Last: every error collected above, checked against every secret that was in play.
t.test('no thrown error mentions a token, secret or code', async (t) => {
  t.ok(caught.length > 30, `checked ${caught.length} errors`);
  t.ok(secrets.size > 10, `against ${secrets.size} secrets`);
  const leaks: string[] = [];
  for (const err of caught) {
    const text = `${err.message}\n${err.stack ?? ''}\n${JSON.stringify(err)}`;
    for (const s of secrets) if (text.includes(s)) leaks.push(`${err.name}: ${err.message}`);
  }
  t.same(leaks, []);
});
