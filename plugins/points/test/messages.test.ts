// Points per message and joins: the services the gateway calls (cooldown, idempotency per message id, concurrency;
// a join recorded and announced once), the payload filters, and the gateway daemon's life cycle without a gateway
// (gateway.test.ts drives it against the fake gateway).
import t from 'tap';
import { startTestApp } from '@quad/core/testing';
import { awardForMessage, memberFromGateway, messageFromGateway, recordMemberJoined, restBase, snowflakeTime } from '../index.js';
import { startPointsWorld } from './world.js';

t.test('awardForMessage', async (t) => {
  const w = await startPointsWorld(t);
  // The service's ORM, as the gateway daemon gets it (the service role when the tests run as one).
  const { serviceOrm: orm, services } = w.quad;
  await w.sql('update organizations set points_per_message = 3, points_cooldown_seconds = 60 where id = ?', [w.org.id]);
  const guildId = w.guildId;
  const author = { guildId, chatUserId: '1400000000000000001', username: 'talker' };
  const t0 = new Date('2025-01-01T12:00:00Z');
  const at = (s: number) => new Date(t0.getTime() + s * 1000);
  let n = 0;
  const msgId = () => String(1_500_000_000_000_000_000n + BigInt(n++));
  const rows = async (chatUserId: string) => (await w.sql<{ amount: number; message_id: string; source: string }>(
    'select e.amount, e.message_id, e.source from points_entries e join users u on u.id = e.user_id where u.chat_user_id = ? order by e.id', [chatUserId]));

  t.test('one award per cooldown, measured between message times', async (t) => {
    const first = await awardForMessage(orm, services, { ...author, messageId: msgId(), at: at(0) });
    t.match(first, { awarded: true, amount: 3, orgId: w.org.id });
    t.same(await awardForMessage(orm, services, { ...author, messageId: msgId(), at: at(30) }), { awarded: false, why: 'cooldown' });
    t.same(await awardForMessage(orm, services, { ...author, messageId: msgId(), at: at(59.9) }), { awarded: false, why: 'cooldown' });
    t.match(await awardForMessage(orm, services, { ...author, messageId: msgId(), at: at(60) }), { awarded: true });
    const [user] = await w.sql('select username from users where chat_user_id = ?', [author.chatUserId]);
    t.equal(user!.username, 'talker', 'the member is recorded');
    t.same((await rows(author.chatUserId)).map((r) => [r.amount, r.source]), [[3, 'message'], [3, 'message']]);
  });

  t.test('idempotent per message id', async (t) => {
    const id = msgId();
    const other = { ...author, chatUserId: '1400000000000000002' };
    t.match(await awardForMessage(orm, services, { ...other, messageId: id, at: at(0) }), { awarded: true });
    t.same(await awardForMessage(orm, services, { ...other, messageId: id, at: at(500) }), { awarded: false, why: 'duplicate' });
    t.equal((await rows(other.chatUserId)).length, 1);
  });

  t.test('concurrent messages of one member: one award per cooldown', async (t) => {
    const busy = { ...author, chatUserId: '1400000000000000003' };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => awardForMessage(orm, services, { ...busy, messageId: msgId(), at: at(i) })));
    t.equal(results.filter((r) => r.awarded).length, 1);
    t.equal((await rows(busy.chatUserId)).length, 1);
  });

  t.test('the same message delivered many times at once pays once', async (t) => {
    await w.sql('update organizations set points_cooldown_seconds = 0 where id = ?', [w.org.id]);
    const twice = { ...author, chatUserId: '1400000000000000004' };
    const id = msgId();
    const results = await Promise.all(Array.from({ length: 20 }, () => awardForMessage(orm, services, { ...twice, messageId: id, at: at(0) })));
    t.equal(results.filter((r) => r.awarded).length, 1);
    t.ok(results.filter((r) => !r.awarded).every((r) => !r.awarded && r.why === 'duplicate'));
    t.equal((await rows(twice.chatUserId)).length, 1);
  });

  t.test('cooldown 0: every message pays', async (t) => {
    const chatty = { ...author, chatUserId: '1400000000000000005' };
    const results = await Promise.all(Array.from({ length: 10 }, () => awardForMessage(orm, services, { ...chatty, messageId: msgId(), at: at(0) })));
    t.equal(results.filter((r) => r.awarded).length, 10);
    t.equal(await w.balance(await w.userId({ chatUserId: chatty.chatUserId })), 30);
  });

  t.test('nothing for unknown servers, orgs with points off or at zero per message', async (t) => {
    t.same(await awardForMessage(orm, services, { ...author, guildId: '1999999999999999999', messageId: msgId() }), { awarded: false, why: 'no_org' });
    await w.sql('update organizations set points_per_message = 0 where id = ?', [w.org.id]);
    t.same(await awardForMessage(orm, services, { ...author, messageId: msgId(), at: at(10_000) }), { awarded: false, why: 'no_points' });
    await w.sql('update organizations set points_per_message = 3, modules = ? where id = ?', [JSON.stringify({ points: false }), w.org.id]);
    t.same(await awardForMessage(orm, services, { ...author, messageId: msgId(), at: at(20_000) }), { awarded: false, why: 'module_off' });
    await w.sql('update organizations set modules = ? where id = ?', [JSON.stringify({ points: true, store: true }), w.org.id]);
  });

  t.test('recordMemberJoined: the member, and one event per join', async (t) => {
    const joinedAt = new Date('2025-03-01T10:00:00Z');
    const first = await recordMemberJoined(orm, services, { guildId, chatUserId: '1400000000000000009', username: 'newbie', displayName: 'New Bie', joinedAt });
    t.match(first, { recorded: true, announced: true, orgId: w.org.id, eventId: Number });
    t.equal((await w.sql('select username from users where chat_user_id = ?', ['1400000000000000009']))[0]!.username, 'newbie');
    const events = () => w.sql<{ kind: string; title: string; message: string; data: Record<string, unknown> }>(
      `select kind, title, message, data from notifications where organization_id = ? and kind = 'points.member_joined' order by id`, [w.org.id]);
    t.match(await events(), [{ title: 'New Bie joined the Discord server', message: '@newbie is new to the server',
      data: { chat_user_id: '1400000000000000009', username: 'newbie', display_name: 'New Bie', joined_at: joinedAt.toISOString(), rejoined: false } }]);
    t.match(await recordMemberJoined(orm, services, { guildId, chatUserId: '1400000000000000009', username: 'newbie', joinedAt }),
      { recorded: true, announced: false }, 'the same join again: recorded, not announced');
    const twice = await Promise.all([1, 2, 3].map(() => recordMemberJoined(orm, services, {
      guildId, chatUserId: '1400000000000000009', username: 'newbie', joinedAt: new Date('2025-04-01T00:00:00Z'), rejoined: true })));
    t.equal(twice.filter((r) => r.recorded && r.announced).length, 1, 'a new join delivered three times at once: announced once');
    t.match((await events()).at(-1), { message: '@newbie rejoined (was a member before)', data: { rejoined: true } });
    t.equal((await events()).length, 2);

    t.same(await recordMemberJoined(orm, services, { guildId: '1999999999999999999', chatUserId: '1400000000000000010', username: 'x' }), { recorded: false, why: 'no_org' });
    t.same(await w.sql('select 1 from users where chat_user_id = ?', ['1400000000000000010']), []);
    await w.sql('update organizations set modules = ? where id = ?', [JSON.stringify({ points: false }), w.org.id]);
    t.same(await recordMemberJoined(orm, services, { guildId, chatUserId: '1400000000000000011', username: 'y' }), { recorded: false, why: 'module_off' });
    t.same(await w.sql('select 1 from users where chat_user_id = ?', ['1400000000000000011']), [], 'points off: nothing recorded');
    await w.sql('update organizations set modules = ? where id = ?', [JSON.stringify({ points: true, store: true }), w.org.id]);
  });
});

t.test('gateway payloads', async (t) => {
  const base = { id: '1300000000000000100', guild_id: '1200000000000000010', timestamp: '2025-01-01T00:00:00.000Z', author: { id: '1300000000000000001', username: 'ada' } };
  t.same(messageFromGateway(base), { guildId: base.guild_id, chatUserId: '1300000000000000001', username: 'ada', messageId: base.id, at: new Date(base.timestamp) });
  t.equal(messageFromGateway({ ...base, guild_id: undefined }), null, 'direct messages earn nothing');
  t.equal(messageFromGateway({ ...base, author: { ...base.author, bot: true } }), null, 'bots earn nothing');
  t.equal(messageFromGateway({ ...base, author: { ...base.author, system: true } }), null);
  t.equal(messageFromGateway({ ...base, webhook_id: '1' }), null, 'webhooks earn nothing');
  t.equal(messageFromGateway(null), null);
  t.same(messageFromGateway({ ...base, timestamp: undefined })!.at, snowflakeTime(base.id), 'time from the snowflake');
  t.equal(snowflakeTime('175928847299117063')!.toISOString(), '2016-04-30T11:18:25.796Z', 'Discord\'s documented example');
  t.same(memberFromGateway({ guild_id: '1', user: { id: '2', username: 'x' } }), { guildId: '1', chatUserId: '2', username: 'x', displayName: 'x', joinedAt: null, rejoined: false });
  t.match(memberFromGateway({ guild_id: '1', nick: null, flags: 1, joined_at: '2025-01-02T03:04:05.678000+00:00', user: { id: '2', username: 'x', global_name: 'Ex' } }),
    { displayName: 'Ex', joinedAt: new Date('2025-01-02T03:04:05.678Z'), rejoined: true }, 'global name, joined_at in Discord\'s format, DID_REJOIN');
  t.equal(memberFromGateway({ guild_id: '1', user: { id: '2', bot: true } }), null);
  t.equal(memberFromGateway({ user: { id: '2' } }), null, 'no guild');
  t.equal(memberFromGateway('{}'), null);
  t.same(restBase('https://discord.com/api/v10'), { api: 'https://discord.com/api', version: '10' });
  t.same(restBase('http://127.0.0.1:9999/'), { api: 'http://127.0.0.1:9999', version: '10' });
});

t.test('the gateway daemon runs in a worker when BOT_TOKEN is set and stops cleanly', async (t) => {
  const withBot = await startTestApp(t, { plugins: ['./plugins/points'], role: 'worker', config: { BOT_TOKEN: 'fake-bot-token', DISCORD_API_URL: 'http://127.0.0.1:9/api/v10', DISCORD_TIMEOUT_MS: 500 } });
  t.same(withBot.daemons!.running(), ['points.gateway'], 'started (its first connection fails here and is retried)');
  await withBot.close();
  t.same(withBot.daemons!.running(), []);
  const noBot = await startTestApp(t, { plugins: ['./plugins/points'], role: 'worker' });
  t.same(noBot.daemons!.running(), [], 'no BOT_TOKEN, no gateway');
  const off = await startTestApp(t, { plugins: ['./plugins/points'], role: 'worker', config: { BOT_TOKEN: 'fake-bot-token', POINTS_GATEWAY: false } });
  t.same(off.daemons!.running(), [], 'POINTS_GATEWAY=false');
});
