// The fake gateway itself, with a bare WebSocket client: the protocol as Discord documents it (Hello, Identify and
// READY, heartbeats, dispatches filtered by intents and shard, Resume with replay, Invalid Session), every refusal
// with its close code, and the payload shapes against Discord's own examples (fixtures/discord-docs-payloads.json,
// from discord/discord-api-docs at the commit it names), which Quad's payload readers must also read. The
// end-to-end tests (gateway.test.ts) trust this fake; this file is why they may.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { WebSocket } from 'ws';
import { GatewayIntents, startFakeDiscord, until, type FakeDiscord, type TeardownHost } from '@quad/core/testing';
import { memberFromGateway, messageFromGateway } from '../index.js';

const docs = JSON.parse(readFileSync(new URL('./fixtures/discord-docs-payloads.json', import.meta.url), 'utf8'));

interface Payload { op: number; d: any; s: number | null; t: string | null }

/** A bare gateway client: what it received, how it was closed, and a way to send. */
async function connect(t: TeardownHost, url: string) {
  const ws = new WebSocket(url);
  const received: Payload[] = [];
  let closed: { code: number; reason: string } | null = null;
  let refused: number | null = null;
  ws.on('message', (data) => received.push(JSON.parse(String(data))));
  ws.on('close', (code, reason) => { closed = { code, reason: String(reason) }; });
  ws.on('unexpected-response', (_req, res) => { refused = res.statusCode ?? 0; res.resume(); ws.terminate(); });
  ws.on('error', () => { /* refusals are read from `refused` and `closed` */ });
  t.teardown(() => ws.terminate());
  await until('the socket opened or was refused', () => ws.readyState === ws.OPEN || refused !== null || closed !== null);
  let read = 0;
  return {
    ws,
    received,
    get closed() { return closed; },
    get refused() { return refused; },
    send: (payload: unknown) => ws.send(typeof payload === 'string' ? payload : JSON.stringify(payload)),
    /** The next payload not read yet. */
    next: async (what = 'a payload'): Promise<Payload> => {
      await until(what, () => received.length > read || closed);
      if (received.length <= read) throw new Error(`closed (${JSON.stringify(closed)}) while waiting for ${what}`);
      return received[read++]!;
    },
    closedWith: () => until('the close', () => closed),
  };
}

async function world(t: TeardownHost, options: Parameters<FakeDiscord['startGateway']>[0] = {}) {
  const discord = await startFakeDiscord();
  t.teardown(() => discord.close());
  const guild = discord.addGuild({ name: 'Club' });
  const ann = discord.addUser({ username: 'ann', global_name: 'Ann' });
  discord.addMember(guild.id, ann.id);
  const gateway = await discord.startGateway(options);
  const url = `${gateway.url}/?v=10&encoding=json`;
  const identify = (intents: number, extra: Record<string, unknown> = {}) =>
    ({ op: 2, d: { token: discord.botToken, intents, properties: { os: 'linux', browser: 'test', device: 'test' }, ...extra } });
  /** A client that identified and read READY. */
  const session = async (intents = GatewayIntents.Guilds | GatewayIntents.GuildMembers | GatewayIntents.GuildMessages, extra = {}) => {
    const c = await connect(t, url);
    await c.next('Hello');
    c.send(identify(intents, extra));
    const ready = await c.next('READY');
    return { ...c, ready };
  };
  return { discord, gateway, guild, ann, url, identify, session };
}

const types = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v]));
const DISCORD_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/;

t.test('GET /gateway and GET /gateway/bot name the gateway, as the docs shape them', async (t) => {
  const { discord, gateway } = await world(t);
  const open = await (await fetch(`${discord.url}/api/v10/gateway`)).json();
  t.same(open, { url: gateway.url });
  const res = await fetch(`${discord.url}/api/v10/gateway/bot`, { headers: { authorization: `Bot ${discord.botToken}` } });
  const bot = await res.json();
  t.same(types(bot), types(docs.gateway_bot), 'the documented fields and types');
  t.same(types(bot.session_start_limit), types(docs.gateway_bot.session_start_limit));
  t.match(bot, { url: gateway.url, shards: 1, session_start_limit: { max_concurrency: 1 } });
  const anonymous = await fetch(`${discord.url}/api/v10/gateway/bot`);
  t.equal(anonymous.status, 401, 'the bot route needs the bot token');
  await anonymous.body?.cancel();
});

t.test('Hello, heartbeats before and after Identify, READY', async (t) => {
  const { discord, gateway, guild, url, identify } = await world(t, { heartbeatIntervalMs: 45_000 });
  const c = await connect(t, url);
  const hello = await c.next('Hello');
  t.same(hello, { ...docs.hello, s: null, t: null }, 'the documented Hello');
  c.send({ op: 1, d: null });
  t.same(await c.next('ACK'), { op: 11, d: null, s: null, t: null });
  c.send(identify(GatewayIntents.Guilds | GatewayIntents.GuildMessages));
  const ready = await c.next('READY');
  t.match(ready, { op: 0, t: 'READY', s: 1 });
  t.same(Object.keys(ready.d).sort(), ['application', 'guilds', 'resume_gateway_url', 'session_id', 'user', 'v'], 'READY\'s fields (no shard: none was sent)');
  t.match(ready.d, { v: 10, user: { id: discord.botUser.id, bot: true }, guilds: [{ id: guild.id, unavailable: true }], resume_gateway_url: gateway.resumeUrl, application: { id: discord.clientId } });
  t.equal(ready.d.session_id, gateway.session!.id);
  c.send(docs.heartbeat);
  t.same(await c.next('ACK'), { op: 11, d: null, s: null, t: null });
  t.match(gateway.stats, { identified: 1, heartbeats: 2, acks: 2 });
  gateway.requestHeartbeat();
  t.same(await c.next('a heartbeat request'), { op: 1, d: null, s: null, t: null });
});

t.test('dispatches follow the intents, the shard and the MESSAGE_CONTENT intent', async (t) => {
  const { discord, gateway, guild, ann, session } = await world(t);
  const plain = await session(GatewayIntents.Guilds | GatewayIntents.GuildMessages);
  const members = await session(GatewayIntents.GuildMembers);
  const content = await session(GatewayIntents.GuildMessages | GatewayIntents.MessageContent);
  // The guild's shard of two (gateway.mdx, "Sharding Formula"), and a session on the other one.
  const other = Number((BigInt(guild.id) >> 22n) % 2n) === 0 ? 1 : 0;
  const sharded = await session(GatewayIntents.Guilds | GatewayIntents.GuildMessages, { shard: [other, 2] });
  t.same(sharded.ready.d.guilds, [], 'READY lists only the shard\'s guilds');
  t.same(sharded.ready.d.shard, [other, 2]);

  const sent = gateway.sendMessage({ guildId: guild.id, authorId: ann.id, content: 'hello there' });
  const newcomer = discord.addUser({ username: 'bo' });
  gateway.memberJoins(guild.id, newcomer.id);

  const m = await plain.next('MESSAGE_CREATE');
  t.match(m, { op: 0, t: 'MESSAGE_CREATE', s: 2, d: { id: sent.id, guild_id: guild.id, content: '', author: { id: ann.id } } }, 'no MESSAGE_CONTENT intent: empty content');
  t.match((await content.next('MESSAGE_CREATE')).d, { content: 'hello there' });
  t.match(await members.next('GUILD_MEMBER_ADD'), { t: 'GUILD_MEMBER_ADD', s: 2, d: { guild_id: guild.id, user: { id: newcomer.id, username: 'bo' }, pending: false, flags: 0 } });
  // Each session numbers its own events: a later event to every session shows who got what.
  gateway.dispatch('GUILD_UPDATE', { id: guild.id }, GatewayIntents.Guilds, guild.id);
  t.match(await plain.next('GUILD_UPDATE'), { t: 'GUILD_UPDATE', s: 3 }, 'plain: no GUILD_MEMBER_ADD in between');
  gateway.dispatch('TYPING_START', { channel_id: '1' }, 0);
  t.match(await members.next('TYPING_START'), { t: 'TYPING_START', s: 3 }, 'members: no MESSAGE_CREATE in between');
  // A guild on the other shard: the next snowflake step of 2^22 flips (id >> 22) % 2.
  const neighbour = discord.addGuild({ id: String(BigInt(guild.id) + (1n << 22n)), name: 'Neighbour' });
  gateway.dispatch('GUILD_UPDATE', { id: neighbour.id }, GatewayIntents.Guilds, neighbour.id);
  t.match(await sharded.next('GUILD_UPDATE'), { t: 'GUILD_UPDATE', s: 2, d: { id: neighbour.id } }, 'the other shard: its guild\'s event, none of the first guild\'s, nor TYPING_START of no guild (shard 0)');
  t.ok(discord.gateway === gateway);
});

t.test('payload shapes follow Discord\'s documented examples, and Quad\'s readers read the examples', async (t) => {
  const { discord, gateway, guild, ann } = await world(t);
  const at = new Date('2025-02-03T04:05:06.789Z');
  const message = gateway.sendMessage({ guildId: guild.id, authorId: ann.id, at }) as unknown as Record<string, unknown>;
  // `reactions` is there only once someone reacted.
  const documented = Object.fromEntries(Object.entries(docs.message).filter(([k]) => k !== 'reactions')) as Record<string, unknown>;
  t.same(Object.fromEntries(Object.keys(documented).map((k) => [k, types(message)[k]])), types(documented), 'every documented message field, with its type');
  t.match(message.timestamp, DISCORD_TIME, 'timestamps in Discord\'s format');
  t.equal(message.timestamp, '2025-02-03T04:05:06.789000+00:00');
  t.match(docs.message.timestamp, DISCORD_TIME);
  t.same(messageFromGateway(message)!.at, at);
  t.equal(messageFromGateway(message)!.messageId, message.id);
  t.same(Object.keys(message.member as object).sort(), ['avatar', 'banner', 'communication_disabled_until', 'deaf', 'flags', 'joined_at', 'mute', 'nick', 'premium_since', 'roles'],
    'MESSAGE_CREATE\'s member: no user, no pending (guild.mdx)');

  const bo = discord.addUser({ username: 'bo', global_name: 'Bo' });
  const join = gateway.memberJoins(guild.id, bo.id) as unknown as Record<string, unknown>;
  const member = docs.guild_member as Record<string, unknown>;
  t.same(Object.keys(member).filter((k) => !(k in join)), [], 'every documented guild member field');
  // nick, avatar and banner are nullable (?string): the example has a nick, the fake's member none.
  const always = ['roles', 'joined_at', 'deaf', 'mute'];
  t.same(Object.fromEntries(always.map((k) => [k, types(join)[k]])), Object.fromEntries(always.map((k) => [k, types(member)[k]])), 'with the documented types');
  const minimalUser = ['id', 'username', 'global_name', 'discriminator', 'avatar'];
  t.same(Object.keys(join.user as object).filter((k) => minimalUser.includes(k)).sort(), [...minimalUser].sort());
  t.match(join.joined_at, DISCORD_TIME);

  // Quad's readers on Discord's own examples (a MESSAGE_CREATE is a message with guild_id; GUILD_MEMBER_ADD a member with guild_id).
  t.same(messageFromGateway({ ...docs.message, guild_id: '290926798999357249' }), {
    guildId: '290926798999357249', chatUserId: '53908099506183680', username: 'Mason', messageId: '334385199974967042', at: new Date('2017-07-11T17:27:07.299Z'),
  });
  t.same(memberFromGateway({ ...docs.guild_member, user: docs.user, guild_id: '290926798999357249' }), {
    guildId: '290926798999357249', chatUserId: '80351110224678912', username: 'Nelly', displayName: 'NOT API SUPPORT',
    joinedAt: new Date('2015-04-26T06:26:56.936Z'), rejoined: false,
  });
  t.equal(memberFromGateway({ ...docs.guild_member, guild_id: '1' }), null, 'the docs\' placeholder user ({}) is no member');
});

t.test('refusals close with Discord\'s codes', async (t) => {
  const { gateway, url, identify, discord } = await world(t, { privilegedIntents: GatewayIntents.MessageContent });
  const cases: [string, (c: Awaited<ReturnType<typeof connect>>) => void, number][] = [
    ['not JSON', (c) => c.send('{nope'), 4002],
    ['binary', (c) => c.ws.send(Buffer.from('{"op":1,"d":null}')), 4002],
    ['over 4096 bytes', (c) => c.send({ op: 1, d: null, pad: 'x'.repeat(4100) }), 4002],
    ['no op', (c) => c.send({ d: null }), 4002],
    ['an unknown opcode', (c) => c.send({ op: 5, d: null }), 4001],
    ['a presence update before Identify', (c) => c.send({ op: 3, d: {} }), 4003],
    ['a wrong token', (c) => c.send({ ...identify(1), d: { ...identify(1).d, token: 'nope' } }), 4004],
    ['identify twice', (c) => { c.send(identify(1)); c.send(identify(1)); }, 4005],
    ['an unknown intent bit', (c) => c.send(identify(1 << 30)), 4013],
    ['a privileged intent not enabled', (c) => c.send(identify(GatewayIntents.GuildMembers)), 4014],
    ['an invalid shard', (c) => c.send(identify(1, { shard: [2, 2] })), 4010],
    ['identify without properties', (c) => c.send({ op: 2, d: { token: discord.botToken, intents: 1 } }), 4002],
  ];
  for (const [what, act, code] of cases) {
    const c = await connect(t, url);
    await c.next('Hello');
    act(c);
    t.match(await c.closedWith(), { code }, `${what}: ${code}`);
  }
  const old = await connect(t, `${gateway.url}/?v=8&encoding=json`);
  t.match(await old.closedWith(), { code: 4012 }, 'API version 8: 4012');
  for (const query of ['v=10&encoding=etf', 'v=10&encoding=json&compress=zlib-stream']) {
    const c = await connect(t, `${gateway.url}/?${query}`);
    t.equal(c.refused, 400, `${query}: refused (the fake speaks uncompressed JSON only)`);
  }
  const lost = await connect(t, `${gateway.url}/elsewhere?v=10&encoding=json`);
  t.equal(lost.refused, 404);
  t.equal(gateway.stats.identified, 1, 'only the double Identify got a session');
});

t.test('Resume: missed events replayed in order, then RESUMED; refused resumes', async (t) => {
  const { gateway, guild, ann, discord, session } = await world(t);
  const first = await session();
  const id = first.ready.d.session_id as string;
  const seen = gateway.sendMessage({ guildId: guild.id, authorId: ann.id });
  t.match(await first.next('a message'), { s: 2, d: { id: seen.id } });
  gateway.drop();
  t.match(await first.closedWith(), { code: 1006 }, 'cut: no close frame');
  const missed = [gateway.sendMessage({ guildId: guild.id, authorId: ann.id }), gateway.sendMessage({ guildId: guild.id, authorId: ann.id })];

  const back = await connect(t, `${gateway.resumeUrl}?v=10&encoding=json`);
  await back.next('Hello');
  back.send({ op: 6, d: { ...docs.resume.d, token: discord.botToken, session_id: id, seq: 2 } });
  t.match(await back.next('replay 1'), { t: 'MESSAGE_CREATE', s: 3, d: { id: missed[0]!.id } });
  t.match(await back.next('replay 2'), { t: 'MESSAGE_CREATE', s: 4, d: { id: missed[1]!.id } });
  t.match(await back.next('RESUMED'), { op: 0, t: 'RESUMED', s: 5 });
  t.match(gateway.stats, { resumed: 1, replayed: 2, identified: 1 });
  t.ok(gateway.session!.online);

  const resumeWith = async (d: Record<string, unknown>) => {
    const c = await connect(t, `${gateway.resumeUrl}?v=10&encoding=json`);
    await c.next('Hello');
    c.send({ op: 6, d: { token: discord.botToken, ...d } });
    return c;
  };
  const unknown = await resumeWith({ session_id: 'no-such-session', seq: 1 });
  t.same(await unknown.next('Invalid Session'), { ...docs.invalid_session, s: null, t: null }, 'an unknown session: op 9 false');
  const ahead = await resumeWith({ session_id: id, seq: 99 });
  t.match(await ahead.closedWith(), { code: 4007 }, 'a seq the session never sent: 4007');
  const wrong = await resumeWith({ session_id: id, seq: 5, token: 'nope' });
  t.match(await wrong.closedWith(), { code: 4004 });

  // The session's live connection closes with 1000: the session ends, a resume is refused.
  back.ws.close(1000);
  await back.closedWith();
  await until('the session ended', () => gateway.session!.valid === false);
  const late = await resumeWith({ session_id: id, seq: 5 });
  t.match(await late.next('Invalid Session'), { op: 9, d: false });

  // Events beyond the replay buffer (1000) while away: the resume is refused, the client must identify anew.
  const busy = await session();
  gateway.drop(4000);
  t.match(await busy.closedWith(), { code: 4000 });
  for (let i = 0; i < 1001; i++) gateway.dispatch('TYPING_START', { channel_id: '1' }, GatewayIntents.GuildMessages, guild.id);
  const stale = await resumeWith({ session_id: busy.ready.d.session_id, seq: 1 });
  t.match(await stale.next('Invalid Session'), { op: 9, d: false });
  const recent = await resumeWith({ session_id: busy.ready.d.session_id, seq: 901 });
  t.match(await recent.next('the replay'), { t: 'TYPING_START', s: 902 }, 'a resume within the buffer still works');
});

t.test('Reconnect and Invalid Session on request; held connections get Hello on release', async (t) => {
  const { gateway, url, session } = await world(t);
  const c = await session();
  gateway.requestReconnect();
  t.same(await c.next('Reconnect'), { op: 7, d: null, s: null, t: null });
  gateway.invalidateSession(true);
  t.same(await c.next('Invalid Session'), { op: 9, d: true, s: null, t: null });
  t.ok(gateway.session!.valid, 'resumable: the session stays');
  gateway.invalidateSession(false);
  t.same(await c.next('Invalid Session'), { op: 9, d: false, s: null, t: null });
  t.notOk(gateway.session!.valid);

  gateway.holdConnections(true);
  const held = await connect(t, url);
  await until('held', () => gateway.held === 1);
  t.same(held.received, [], 'no Hello while held');
  gateway.holdConnections(false);
  t.match(await held.next('Hello'), { op: 10 });
  t.equal(gateway.held, 0);
});
