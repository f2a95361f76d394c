// The Discord gateway end to end: the real daemon points.gateway, in a worker process with BOT_TOKEN set, connects
// through @discordjs/ws as production does (DISCORD_API_URL at the fake Discord, whose GET /gateway/bot names the
// fake gateway) and is driven by what the gateway dispatches: points per message (the module switch respected),
// connections dropped, zombied, told to reconnect or invalidated (every message awarded exactly once), and new
// members (recorded, a notification, and the outbound webhooks that selected points.member_joined). Every wait is on
// a condition (the database, the API, the fake's record or the daemon's log), never on time.
import t from 'tap';
import { captureLogs, startFakeDiscord, startTestApp, until, type FakeGateway, type FakeUser } from '@quad/core/testing';
import { GATEWAY_INTENTS, MEMBER_JOINED_EVENT } from '../index.js';
import { startPointsWorld, type PointsWorld } from './world.js';

const SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');
/** Short, so heartbeats (and a missing ACK) happen within a test. */
const HEARTBEAT_MS = 250;

type LogLine = Record<string, unknown> & { msg?: string };
type Outcome = Record<string, unknown>;

t.test('the gateway daemon against the fake gateway', async (t) => {
  const receiver = await startFakeDiscord();
  t.teardown(() => receiver.close());
  const hookConfig = { SECRETS_KEY: [SECRETS_KEY], DISCORD_WEBHOOK_URL_BASE: `${receiver.url}/api/webhooks/` };
  const w: PointsWorld = await startPointsWorld(t, { plugins: ['./plugins/event_webhook'], modules: { points: true, event_webhook: true }, config: hookConfig });
  await w.sql('update organizations set points_per_message = 5, points_cooldown_seconds = 0 where id = ?', [w.org.id]);
  const gateway: FakeGateway = await w.discord.startGateway({ heartbeatIntervalMs: HEARTBEAT_MS });
  const logs = captureLogs('debug');
  // The worker process that holds the gateway, on the world's database; DISCORD_API_URL as production sets it.
  const worker = await startTestApp(t, {
    plugins: ['./plugins/points', './plugins/event_webhook'], role: 'worker', databaseUrl: w.quad.databaseUrl, logger: logs.logger,
    config: { ...w.discordConfig, ...hookConfig, DISCORD_API_URL: `${w.discord.url}/api/v10`, POINTS_GATEWAY: true },
  });
  t.same(worker.daemons!.running(), ['points.gateway']);

  const lines = () => logs.lines as LogLine[];
  /** The daemon's outcome for a message id, once it handled it. */
  const handled = (messageId: string) => until(`the daemon handled message ${messageId}`, () =>
    lines().find((l) => l.msg === 'points.gateway: MESSAGE_CREATE handled' && l.message_id === messageId)?.outcome as Outcome | undefined);
  const timesHandled = (messageId: string) => lines().filter((l) => l.msg === 'points.gateway: MESSAGE_CREATE handled' && l.message_id === messageId).length;
  const joinOutcomes = (chatUserId: string) => lines()
    .filter((l) => l.msg === 'points.gateway: GUILD_MEMBER_ADD handled' && l.chat_user_id === chatUserId).map((l) => l.outcome as Outcome);
  const rowsOf = (chatUserId: string) => w.sql<{ message_id: string; amount: number; source: string; created_at: Date }>(
    `select e.message_id, e.amount, e.source, e.created_at from points_entries e join users u on u.id = e.user_id
      where e.organization_id = ? and u.chat_user_id = ? order by e.id`, [w.org.id, chatUserId]);
  const newMember = (username: string, extra: Partial<FakeUser> = {}) => {
    const user = w.discord.addUser({ username, ...extra, bot: extra.bot === true });
    w.discord.addMember(w.guildId, user.id);
    return user;
  };
  const say = (author: FakeUser, guildId = w.guildId) => gateway.sendMessage({ guildId, authorId: author.id, content: `hi from ${author.username}` });

  await until('the daemon identified', () => gateway.session?.online);

  t.test('it connects as production configures it: REST for the URL, JSON without compression, its intents', async (t) => {
    t.ok(w.discord.requests.some((r) => r.method === 'GET' && r.path === '/api/v10/gateway/bot' && r.auth === 'bot'), 'GET /gateway/bot with the bot token');
    const first = gateway.connections[0]!;
    t.equal(first.path, '/');
    t.same(first.query, { v: '10', encoding: 'json' }, 'API version 10, JSON, no compress parameter');
    const identify = first.received.find((p) => p.op === 2)!.d as Record<string, unknown>;
    t.match(identify, { token: w.discord.botToken, intents: GATEWAY_INTENTS, shard: [0, 1], compress: false, properties: { os: String, browser: String, device: String } });
    t.equal(gateway.stats.identified, 1);
    await until('two heartbeats answered', () => gateway.stats.acks >= 2);
    const beats = first.received.filter((p) => p.op === 1).map((p) => p.d);
    t.ok(beats.every((d) => d === null || (Number.isInteger(d) && (d as number) <= gateway.session!.seq)), 'heartbeats carry the last sequence number seen');
  });

  t.test('a message on the bound server awards the org\'s points once, visible through the API', async (t) => {
    const bob = w.member;
    const msg = say(bob);
    t.match(await handled(msg.id), { awarded: true, amount: 5, orgId: w.org.id });
    const rows = await rowsOf(bob.id);
    t.same(rows.map((r) => [r.message_id, r.amount, r.source]), [[msg.id, 5, 'message']]);
    t.equal(new Date(rows[0]!.created_at).toISOString(), new Date(msg.timestamp).toISOString(), 'dated by the message');
    const res = await w.call({ url: `/api/points/acm/members?q=${bob.username}`, token: w.officerToken });
    t.equal(res.statusCode, 200);
    t.match(res.json().members, [{ chat_user_id: bob.id, username: bob.username, balance: 5 }]);
    t.equal(timesHandled(msg.id), 1);
  });

  t.test('bots, webhooks and servers without an org earn nothing; the module switch is respected', async (t) => {
    const robot = newMember('helper-bot', { bot: true });
    const carol = newMember('carol');
    say(robot);
    gateway.sendMessage({ guildId: w.guildId, authorId: carol.id, webhookId: '1400000000000000999' });
    const elsewhere = w.discord.addGuild({ name: 'Unbound' });
    w.discord.addMember(elsewhere.id, carol.id);
    t.same(await handled(say(carol, elsewhere.id).id), { awarded: false, why: 'no_org' });
    // Dispatches reach the daemon in order; the bot's and the webhook's were dropped before this one was queued.
    t.match(await handled(say(carol).id), { awarded: true });
    t.same(await rowsOf(robot.id), [], 'the bot earned nothing');
    t.equal((await rowsOf(carol.id)).length, 1, 'the webhook message and the other server earned carol nothing');

    await w.quad.updateOrg(w.org.id, { modules: { points: false, event_webhook: true } });
    const off = say(carol);
    t.same(await handled(off.id), { awarded: false, why: 'module_off' });
    t.equal((await rowsOf(carol.id)).length, 1, 'points off: no award');
    await w.quad.updateOrg(w.org.id, { modules: { points: true, event_webhook: true } });
    t.match(await handled(say(carol).id), { awarded: true });
    t.equal((await rowsOf(carol.id)).length, 2);
  });

  t.test('a dropped connection is resumed: the events sent while the client was away are replayed, each awarded once', async (t) => {
    const dave = newMember('dave');
    const before = [say(dave), say(dave)];
    for (const m of before) await handled(m.id);
    const { identified, resumed, replayed } = gateway.stats;
    const session = gateway.session!;

    gateway.holdConnections(true);
    gateway.drop();
    const away = [say(dave), say(dave), say(dave)];
    const erin = w.discord.addUser({ username: 'erin' });
    gateway.memberJoins(w.guildId, erin.id);
    await until('the client came back (held before Hello)', () => gateway.held === 1);
    t.notOk(gateway.session!.online, 'no connection while away');
    t.equal((await rowsOf(dave.id)).length, 2, 'nothing could arrive while away');

    gateway.holdConnections(false);
    await until('all five messages awarded', async () => (await rowsOf(dave.id)).length === 5);
    await until('the join handled', () => joinOutcomes(erin.id).length === 1);
    const stats = gateway.stats;
    t.equal(stats.identified, identified, 'the same session: no new Identify');
    t.equal(stats.resumed, resumed + 1);
    t.equal(stats.replayed - replayed, 4, 'three messages and the join replayed');
    const back = gateway.connections.at(-1)!;
    t.equal(back.path, '/resume', 'resumed on READY\'s resume_gateway_url');
    t.same(back.query, { v: '10', encoding: 'json' });
    t.match(back.received.find((p) => p.op === 6)!.d, { token: w.discord.botToken, session_id: session.id, seq: session.seq });
    t.equal(gateway.session!.id, session.id);
    const ids = (await rowsOf(dave.id)).map((r) => r.message_id);
    t.same(ids.sort(), [...before, ...away].map((m) => m.id).sort(), 'every message exactly once');
    for (const m of [...before, ...away]) t.equal(timesHandled(m.id), 1, `message ${m.id} handled once`);
    t.match(joinOutcomes(erin.id), [{ recorded: true, announced: true }]);
  });

  t.test('events in flight when the connection is cut, or closed with a resumable code, are neither lost nor doubled', async (t) => {
    const fay = newMember('fay');
    const cut = Array.from({ length: 5 }, () => say(fay));
    gateway.drop();
    const afterCut = [say(fay), say(fay)];
    await until('the cut messages awarded', async () => (await rowsOf(fay.id)).length === 7);
    const resumed = gateway.stats.resumed;
    gateway.drop(4000);
    const afterClose = [say(fay), say(fay)];
    await until('resumed after close code 4000', () => gateway.stats.resumed > resumed);
    await until('all awarded', async () => (await rowsOf(fay.id)).length === 9);
    for (const m of [...cut, ...afterCut, ...afterClose]) t.equal(timesHandled(m.id), 1, `message ${m.id} handled once`);
    t.match(gateway.connections.find((c) => c.closed?.code === 4000), { closed: { by: 'server' } });
  });

  t.test('a zombie connection (heartbeats without ACK) is closed by the client and resumed', async (t) => {
    const resumed = gateway.stats.resumed;
    const open = gateway.connections.at(-1)!;
    gateway.withholdAcks(true);
    await until('the client gave up on the silent connection', () => gateway.stats.resumed > resumed);
    gateway.withholdAcks(false);
    t.match(open.closed, { by: 'client', code: 4200 }, 'closed with a resumable code, not 1000/1001');
    const gus = newMember('gus');
    t.match(await handled(say(gus).id), { awarded: true });
  });

  t.test('Heartbeat requested (op 1), Reconnect (op 7) and Invalid Session (op 9) are followed', async (t) => {
    const beats = gateway.stats.heartbeats;
    gateway.requestHeartbeat();
    await until('a heartbeat on request', () => gateway.stats.heartbeats > beats);

    const { resumed, identified } = gateway.stats;
    const session = gateway.session!.id;
    gateway.requestReconnect();
    await until('resumed after Reconnect', () => gateway.stats.resumed > resumed);
    t.equal(gateway.session!.id, session);
    t.equal(gateway.stats.identified, identified);

    gateway.invalidateSession(true);
    await until('resumed after a resumable Invalid Session', () => gateway.stats.resumed > resumed + 1);
    t.equal(gateway.session!.id, session);

    gateway.invalidateSession(false);
    // The library waits out Discord's 5 s identify window since the last Identify, when it has not passed yet.
    await until('a new session after an Invalid Session that cannot resume', () => gateway.stats.identified > identified && gateway.session?.online, { timeoutMs: 20_000 });
    t.not(gateway.session!.id, session);
    const hal = newMember('hal');
    t.match(await handled(say(hal).id), { awarded: true });
  });

  t.test('a new member\'s join: recorded, a notification, and the webhooks that selected points.member_joined', async (t) => {
    const listing = await w.call({ url: '/api/dashboard/acm/webhooks', token: w.officerToken });
    t.match(listing.json().events.find((e: { kind: string }) => e.kind === MEMBER_JOINED_EVENT), { module: 'points', module_on: true }, 'a selectable event kind');
    const joins = receiver.addWebhook();
    const others = receiver.addWebhook();
    for (const [name, hook, events] of [['Joins', joins, [MEMBER_JOINED_EVENT]], ['Failures', others, ['job.failed']]] as const) {
      const res = await w.call({ method: 'POST', url: '/api/dashboard/acm/webhooks', token: w.officerToken, body: { name, destination: hook.url, events } });
      t.equal(res.statusCode, 201, `webhook ${name} added`);
    }
    const events = async () => (await w.call({ url: `/api/dashboard/acm/notifications?kind=${MEMBER_JOINED_EVENT}`, token: w.officerToken })).json().items as Record<string, any>[];
    const joinsOf = async (chatUserId: string) => (await events()).filter((e) => e.data.chat_user_id === chatUserId);
    const before = (await events()).length; // erin joined during the resume test

    const ivy = w.discord.addUser({ username: 'ivy', global_name: 'Ivy Chen' });
    const join = gateway.memberJoins(w.guildId, ivy.id);
    const [mine] = await until('the join\'s notification', async () => { const found = await joinsOf(ivy.id); return found.length === 1 && found; });
    t.match(mine, {
      category: 'event', kind: MEMBER_JOINED_EVENT, title: 'Ivy Chen joined the Discord server', message: '@ivy is new to the server',
      data: { chat_user_id: ivy.id, username: 'ivy', display_name: 'Ivy Chen', joined_at: new Date(join.joined_at!).toISOString(), rejoined: false },
    });
    const [user] = await w.sql<{ id: number; username: string }>('select id, username from users where chat_user_id = ?', [ivy.id]);
    t.equal(user!.username, 'ivy', 'the member is recorded');
    const [seen] = await w.sql<{ known_by_discord: boolean; discord_joined_at: string }>(
      'select known_by_discord, discord_joined_at from points_members where organization_id = ? and user_id = ?', [w.org.id, user!.id]);
    t.same({ ...seen, discord_joined_at: new Date(seen!.discord_joined_at).toISOString() },
      { known_by_discord: true, discord_joined_at: new Date(join.joined_at!).toISOString() }, 'known through Discord, with the join\'s time');
    const post = await until('the webhook that selected the event got it', () => receiver.webhookPosts.find((p) => p.webhookId === joins.id));
    t.match(post.body, { embeds: [{ title: 'Ivy Chen joined the Discord server', description: '@ivy is new to the server', footer: { text: `${w.org.name} · ${MEMBER_JOINED_EVENT}` } }], allowed_mentions: { parse: [] } });

    // Discord may send GUILD_MEMBER_ADD again for a member (same joined_at): recorded, not announced again.
    gateway.memberJoins(w.guildId, ivy.id);
    await until('the repeat handled', () => joinOutcomes(ivy.id).length === 2);
    t.match(joinOutcomes(ivy.id), [{ recorded: true, announced: true }, { recorded: true, announced: false }]);
    // Leaving and joining again is a new join (a new joined_at and the DID_REJOIN flag).
    w.discord.removeMember(w.guildId, ivy.id);
    gateway.memberJoins(w.guildId, ivy.id);
    await until('the rejoin announced', async () => (await joinsOf(ivy.id)).length === 2);
    t.match((await events())[0], { title: 'Ivy Chen joined the Discord server', message: '@ivy rejoined (was a member before)', data: { rejoined: true } });
    await until('both joins posted', () => receiver.webhookPosts.filter((p) => p.webhookId === joins.id).length === 2);
    t.equal((await events()).length, before + 2);
    t.notOk(receiver.webhookPosts.some((p) => p.webhookId === others.id), 'a webhook that did not select the event gets nothing');

    // A bot joining is nobody; a server whose org has points off records nothing and announces nothing.
    const robot = w.discord.addUser({ username: 'joiner-bot', bot: true });
    gateway.memberJoins(w.guildId, robot.id);
    const quietGuild = w.discord.addGuild({ name: 'Quiet' });
    const quiet = await w.quad.createOrg({ prefix: 'quiet', discordGuildId: quietGuild.id, modules: { points: false, event_webhook: true } });
    const jo = w.discord.addUser({ username: 'jo' });
    gateway.memberJoins(quietGuild.id, jo.id);
    await until('the join in the quiet server handled', () => joinOutcomes(jo.id).length === 1);
    t.same(joinOutcomes(jo.id), [{ recorded: false, why: 'module_off' }]);
    t.same(await w.sql('select 1 from users where chat_user_id = ?', [jo.id]), [], 'points off: nobody recorded');
    t.same(await w.sql('select 1 from notifications where organization_id = ?', [quiet.id]), [], 'and no event');
    t.same(joinOutcomes(robot.id), [], 'the bot\'s join was dropped before it was queued');
    t.same(await w.sql('select 1 from users where chat_user_id = ?', [robot.id]), []);
  });

  t.test('the daemon stops cleanly: it closes its connection with 1000 and the session ends', async (t) => {
    const last = gateway.connections.at(-1)!;
    await worker.close();
    t.same(worker.daemons!.running(), []);
    await until('the connection closed', () => last.closed);
    t.match(last.closed, { by: 'client', code: 1000 });
    t.notOk(gateway.session!.valid, 'closing with 1000 ends the session');
  });
});

t.test('a privileged intent the bot lacks: the refusal is logged as an error naming the fix, and not retried', async (t) => {
  const discord = await startFakeDiscord();
  t.teardown(() => discord.close());
  const gateway = await discord.startGateway({ privilegedIntents: 0 });
  const logs = captureLogs('info');
  await startTestApp(t, {
    plugins: ['./plugins/points'], role: 'worker', logger: logs.logger,
    config: { BOT_TOKEN: discord.botToken, DISCORD_API_URL: `${discord.url}/api/v10` },
  });
  await until('the gateway refused the Identify', () => gateway.connections[0]?.closed);
  t.match(gateway.connections[0]!.closed, { code: 4014, by: 'server' });
  const line = await until('the error logged', () => (logs.lines as LogLine[]).find((l) => l.level === 50 && String(l.msg).includes('Server Members Intent')));
  t.match(line, { code: 4014, msg: /points\.gateway: Discord refused a privileged intent/ });
  t.equal(gateway.stats.identified, 0);
  t.equal(gateway.connections.length, 1, 'no reconnect after a refusal that no retry can fix');
});

t.test('an unknown REST token: GET /gateway/bot answers 401 and the daemon retries later', async (t) => {
  const discord = await startFakeDiscord();
  t.teardown(() => discord.close());
  const gateway = await discord.startGateway();
  const logs = captureLogs('info');
  await startTestApp(t, {
    plugins: ['./plugins/points'], role: 'worker', logger: logs.logger,
    config: { BOT_TOKEN: 'not-the-bot-token', DISCORD_API_URL: `${discord.url}/api/v10` },
  });
  await until('the retry logged', () => (logs.lines as LogLine[]).find((l) => String(l.msg).includes('could not connect to the Discord gateway; retrying')));
  t.ok(discord.requests.some((r) => r.path === '/api/v10/gateway/bot' && r.auth === 'bot'));
  t.same(gateway.connections, [], 'no WebSocket without the gateway\'s address');
});

t.test('without a gateway started, the fake Discord answers GET /gateway/bot 404, as before', async (t) => {
  const discord = await startFakeDiscord();
  t.teardown(() => discord.close());
  const res = await fetch(`${discord.url}/api/v10/gateway/bot`, { headers: { authorization: `Bot ${discord.botToken}` } });
  t.equal(res.status, 404);
  await res.body?.cancel();
  t.equal(discord.gateway, null);
});
