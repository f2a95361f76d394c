// The calendar end to end against real PostgreSQL and the fake Discord on loopback: every validation refusal,
// create/read/change/delete with events and audit rows, window listings with recurring events across a DST change,
// the public listing, the iCalendar feed (parsed and expanded by ical.js), its token's rotation and revocation, the
// Discord sync (copy, change, cancel, failure and its problem, the half-hourly schedule), the tools and the org
// boundaries.
import t from 'tap';
import ICAL from 'ical.js';
import { bearer } from '@quad/core/testing';
import { startCalendarWorld } from './world.js';
import { SYNC_DUE_JOB, SYNC_JOB } from '../jobs.js';

const w = await startCalendarWorld(t);
const { quad, discord } = w;
const gamma = await quad.createOrg({ prefix: 'gamma', modules: { calendar: false } });
const NY = 'America/New_York';
// A weekly Monday 18:00 New York event from 2026-10-19; DST ends on 2026-11-01.
const weekly = {
  title: 'Hack night; bring snacks, laptops', description: 'Line one\nLine two with a back\\slash', location: 'Room 101, Main St',
  start_at: '2026-10-19T18:00:00-04:00', end_at: '2026-10-19T20:00:00-04:00', time_zone: NY, recurrence: 'FREQ=WEEKLY;BYDAY=MO;COUNT=6',
};
const ids: Record<string, number> = {};
const notificationKinds = async () => (await w.sql<{ kind: string }>("select kind from notifications where organization_id = ? and kind like 'calendar.event_%' order by id", [w.org.id])).map((r) => r.kind);

t.test('validation: each refusal is a 400 naming the field, nothing stored', async (t) => {
  const base = { title: 'x', start_at: '2026-12-01T18:00:00Z', end_at: '2026-12-01T19:00:00Z', time_zone: 'UTC' };
  const cases: [unknown, string, string?][] = [
    [{ ...base, title: '   ' }, 'body.title'],
    [{ ...base, title: 'x'.repeat(201) }, 'title'],
    [{ ...base, description: 'x'.repeat(5001) }, 'description'],
    [{ ...base, location: 'x'.repeat(501) }, 'location'],
    [{ ...base, time_zone: 'Mars/Olympus' }, 'body.time_zone', 'invalid_time_zone'],
    [{ ...base, time_zone: 'Europe/../etc' }, 'body.time_zone'],
    [{ ...base, start_at: '2026-12-01' }, 'body.start_at', 'invalid_time'],
    [{ ...base, start_at: '2026-12-01T18:00:00' }, 'start_at'],
    [{ ...base, start_at: '2026-02-30T18:00:00Z' }, 'body.start_at'],
    [{ ...base, end_at: '2026-12-01T17:00:00Z' }, 'body.end_at', 'end_before_start'],
    [{ ...base, end_at: '2026-12-16T18:00:00Z' }, 'body.end_at', 'too_long'],
    [{ ...base, all_day: true, start_at: '2026-12-01', end_at: '2026-12-01' }, 'body.end_at', 'end_before_start'],
    [{ ...base, recurrence: 'FREQ=HOURLY' }, 'body.recurrence', 'invalid_recurrence'],
    [{ ...base, recurrence: 'FREQ=WEEKLY;BYSETPOS=1' }, 'body.recurrence', 'invalid_recurrence'],
    [{ ...base, recurrence: 'FREQ=WEEKLY;COUNT=5;UNTIL=20270101' }, 'body.recurrence', 'invalid_recurrence'],
    [{ ...base, recurrence: 'FREQ=DAILY;INTERVAL=7;BYDAY=MO' }, 'body.recurrence', 'invalid_recurrence'],
    [{ ...base, recurrence: 'FREQ=WEEKLY;COUNT=1001' }, 'body.recurrence', 'invalid_recurrence'],
    [{ ...base, recurrence: 'FREQ=DAILY;UNTIL=20200101' }, 'body.recurrence', 'invalid_recurrence'],
    [{ ...base, color: 'red' }, 'additional properties'],
    [{ title: 'x', start_at: base.start_at, end_at: base.end_at }, 'time_zone'],
  ];
  for (const [body, field, reason] of cases) {
    const res = await w.call('POST', '/events', body);
    t.equal(res.statusCode, 400, `${field}: ${res.body}`);
    t.match(res.body, field.replace('body.', ''), `names ${field}`);
    if (reason) t.equal(res.json().reason, reason);
  }
  t.equal((await w.call('GET', '/events/abc')).statusCode, 400, 'a non-numeric id');
  t.equal((await w.call('GET', '/events/99999999999')).statusCode, 400, 'an id out of range');
  t.equal((await w.call('GET', '/events?from=2026-01-01T00:00:00Z&to=2027-01-03T00:00:00Z')).json().reason, 'window_too_long');
  t.equal((await w.call('GET', '/events?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z')).statusCode, 400);
  t.equal((await w.call('GET', '/events?from=yesterday')).statusCode, 400);
  t.same(await w.sql('select id from calendar_events'), [], 'nothing stored');
});

t.test('create, read, change, delete: SEQUENCE bumps, events and audit rows', async (t) => {
  const made = await w.call('POST', '/events', weekly);
  t.equal(made.statusCode, 201, made.body);
  const event = made.json();
  ids.weekly = event.id;
  t.match(event, {
    title: weekly.title, source: 'quad', read_only: false, public: true, sequence: 0, time_zone: NY, all_day: false, dates: null,
    start_at: '2026-10-19T22:00:00.000Z', end_at: '2026-10-19T00:00:00.000Z'.replace('19T00', '20T00'), recurrence: 'FREQ=WEEKLY;BYDAY=MO;COUNT=6',
  });
  t.match(event.uid, /^[0-9a-f-]{36}@quad$/);
  t.same((await w.call('GET', `/events/${event.id}`)).json(), event);

  const zoned = await w.call('POST', '/events', { title: 'Lowercase zone', start_at: '2026-11-10T09:00:00+01:00', end_at: '2026-11-10T10:00:00+01:00', time_zone: 'europe/berlin', public: false });
  t.equal(zoned.json().time_zone, 'Europe/Berlin', 'the zone name is made canonical');
  ids.private = zoned.json().id;
  const allDay = await w.call('POST', '/events', { title: 'Retreat', start_at: '2026-11-06', end_at: '2026-11-08', time_zone: NY, all_day: true });
  t.match(allDay.json(), { all_day: true, start_at: '2026-11-06T05:00:00.000Z', end_at: '2026-11-08T05:00:00.000Z', dates: { first: '2026-11-06', last: '2026-11-07' } });
  ids.allDay = allDay.json().id;

  const changed = await w.call('PUT', `/events/${ids.private}`, { title: 'Officer sync', location: 'Zoom' });
  t.match(changed.json(), { title: 'Officer sync', location: 'Zoom', sequence: 1, time_zone: 'Europe/Berlin', public: false, start_at: '2026-11-10T08:00:00.000Z' });
  t.equal((await w.call('PUT', `/events/${ids.private}`, { end_at: '2026-11-10T07:00:00Z' })).json().reason, 'end_before_start', 'the merged event is checked');
  t.equal((await w.call('PUT', `/events/${ids.private}`, { recurrence: 'FREQ=DAILY;COUNT=3' })).json().sequence, 2);
  t.equal((await w.call('PUT', '/events/424242', { title: 'x' })).statusCode, 404);
  t.equal((await w.call('PUT', `/events/${ids.private}`, { public: 'yes' })).statusCode, 400);

  const gone = await w.call('POST', '/events', { title: 'Temp', start_at: '2026-11-12T10:00:00Z', end_at: '2026-11-12T11:00:00Z', time_zone: 'UTC' });
  t.equal((await w.call('DELETE', `/events/${gone.json().id}`)).statusCode, 200);
  t.equal((await w.call('GET', `/events/${gone.json().id}`)).json().reason, 'event_not_found');
  t.equal((await w.call('DELETE', `/events/${gone.json().id}`)).statusCode, 404);

  t.same(await notificationKinds(), [
    'calendar.event_created', 'calendar.event_created', 'calendar.event_created', 'calendar.event_changed', 'calendar.event_changed',
    'calendar.event_created', 'calendar.event_deleted',
  ]);
  const audit = await w.sql<{ action: string }>("select action from audit_log where organization_id = ? and action like 'calendar.%'", [w.org.id]);
  t.equal(audit.length, 7, 'every change audited');
});

t.test('listing: occurrences expanded in local time across DST; the public listing shows public events only', async (t) => {
  const res = await w.call('GET', '/events?from=2026-10-25T00:00:00Z&to=2026-11-15T00:00:00Z');
  t.equal(res.statusCode, 200);
  const listing = res.json();
  const weeklyUid = listing.events.find((e: { id: number }) => e.id === ids.weekly).uid;
  const starts = (uid: string) => listing.occurrences.filter((o: { uid: string }) => o.uid === uid).map((o: { start_at: string }) => o.start_at);
  t.same(starts(weeklyUid), ['2026-10-26T22:00:00.000Z', '2026-11-02T23:00:00.000Z', '2026-11-09T23:00:00.000Z'], '18:00 local before and after DST ends');
  t.equal(listing.occurrences.length, 3 + 1 + 3, 'weekly ×3, the retreat, the daily private event ×3');
  t.equal(listing.truncated, false);
  t.ok(listing.occurrences.every((o: { start_at: string }, i: number, all: { start_at: string }[]) => i === 0 || all[i - 1]!.start_at <= o.start_at), 'in order');

  const pub = await quad.api.inject({ url: '/api/calendar/acm/public/events?from=2026-10-25T00:00:00Z&to=2026-11-15T00:00:00Z' });
  t.equal(pub.statusCode, 200, 'no credential needed');
  const shown = pub.json();
  t.same(shown.events.map((e: { title: string }) => e.title).sort(), ['Retreat', weekly.title].sort(), 'the private event is left out');
  t.same(Object.keys(shown.events[0]).sort(), ['all_day', 'dates', 'description', 'end_at', 'location', 'recurrence', 'start_at', 'time_zone', 'title', 'uid']);
  t.equal(shown.occurrences.length, 4);
  t.match(pub.headers['cache-control'], /max-age/);
  t.equal((await quad.api.inject({ url: '/api/calendar/gamma/public/events' })).statusCode, 404, 'module off: 404');
  t.equal((await quad.api.inject({ url: '/api/calendar/nope/public/events' })).statusCode, 404);
  t.equal((await quad.api.inject({ url: '/api/calendar/acm/public/events?to=2030-01-01T00:00:00Z' })).json().reason, 'window_too_long');

  // An unbounded daily series started years ago costs no more than a new one: it is stepped to the window.
  const old = await w.call('POST', '/events', { title: 'Standup', start_at: '2016-03-01T09:00:00-05:00', end_at: '2016-03-01T09:15:00-05:00', time_zone: NY, recurrence: 'FREQ=DAILY', public: false });
  const day = (await w.call('GET', '/events?from=2026-11-02T00:00:00Z&to=2026-11-04T00:00:00Z')).json();
  const standup = day.events.find((e: { id: number }) => e.id === old.json().id);
  t.same(day.occurrences.filter((o: { uid: string }) => o.uid === standup.uid).map((o: { start_at: string }) => o.start_at), ['2026-11-02T14:00:00.000Z', '2026-11-03T14:00:00.000Z']);
  const wide = (await w.call('GET', '/events?from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z')).json();
  t.equal(wide.truncated, false);
  t.equal(wide.occurrences.filter((o: { uid: string }) => o.uid === standup.uid).length, 365);
  await w.call('DELETE', `/events/${old.json().id}`);
});

t.test('the feed: one URL per org, hashed, rotated and revoked; its text parses and expands with ical.js', async (t) => {
  t.same((await w.call('GET', '/feed')).json(), { exists: false, created_at: null });
  t.equal((await w.call('DELETE', '/feed')).statusCode, 404);
  const made = await w.call('POST', '/feed');
  t.equal(made.statusCode, 201);
  const { url, path, rotated } = made.json();
  t.equal(rotated, false);
  t.match(path, /^\/api\/calendar\/feed\/[A-Za-z0-9_-]{43}\.ics$/);
  t.ok(url.endsWith(path));
  const token = path.split('/').pop().slice(0, -4);
  t.same(await w.sql('select 1 from calendar_feeds where token_hash::text like ?', [`%${Buffer.from(token).toString('hex')}%`]), [], 'the token is not stored');
  t.match((await w.call('GET', '/feed')).json(), { exists: true, created_at: String });

  const feed = await quad.api.inject({ url: path });
  t.equal(feed.statusCode, 200, feed.body);
  t.match(feed.headers['content-type'], /^text\/calendar; charset=utf-8/);
  t.match(feed.headers['cache-control'], /private, max-age=900/);
  t.ok(feed.body.split('\r\n').slice(0, -1).every((line) => Buffer.byteLength(line) <= 75), 'folded at 75 octets');
  t.notMatch(feed.body.replace(/\r\n/g, ''), /\n/, 'CRLF line ends only');
  t.equal((await quad.api.inject({ url: path, headers: { 'if-none-match': feed.headers.etag as string } })).statusCode, 304, 'unchanged: 304');

  const calendar = new ICAL.Component(ICAL.parse(feed.body));
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  t.same(calendar.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid')), [NY], 'a VTIMEZONE for the zone used');
  const events = calendar.getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
  t.same(events.map((e) => e.summary).sort(), ['Retreat', weekly.title].sort(), 'public events only');
  const hack = events.find((e) => e.summary === weekly.title)!;
  t.equal(hack.description, weekly.description, 'TEXT escaping round-trips (newline, backslash)');
  t.equal(hack.location, weekly.location, 'commas round-trip');
  t.equal(hack.component.getFirstPropertyValue('sequence'), 0);
  t.equal(hack.startDate.zone.tzid, NY);
  const iterator = hack.iterator();
  const utc: string[] = [];
  for (let next = iterator.next(); next; next = iterator.next()) utc.push(next.toJSDate().toISOString());
  t.same(utc, ['2026-10-19T22:00:00.000Z', '2026-10-26T22:00:00.000Z', '2026-11-02T23:00:00.000Z', '2026-11-09T23:00:00.000Z',
    '2026-11-16T23:00:00.000Z', '2026-11-23T23:00:00.000Z'], 'ical.js expands the series at 18:00 New York time on both sides of DST');
  const retreat = events.find((e) => e.summary === 'Retreat')!;
  t.equal(retreat.startDate.toString(), '2026-11-06');
  t.ok(retreat.startDate.isDate, 'all-day: DATE values');
  t.equal(retreat.endDate.toString(), '2026-11-08');

  await w.call('PUT', `/events/${ids.weekly}`, { title: 'Hack night — 🌙 late edition with a rather long title that must fold somewhere' });
  const changed = await quad.api.inject({ url: path, headers: { 'if-none-match': feed.headers.etag as string } });
  t.equal(changed.statusCode, 200, 'changed: a new ETag');
  t.ok(changed.body.split('\r\n').every((line) => Buffer.byteLength(line) <= 75));
  const again = new ICAL.Component(ICAL.parse(changed.body)).getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
  const renamed = again.find((e) => e.uid === hack.uid)!;
  t.equal(renamed.summary, 'Hack night — 🌙 late edition with a rather long title that must fold somewhere', 'the same UID, unfolded intact');
  t.equal(renamed.component.getFirstPropertyValue('sequence'), 1);

  const rotate = await w.call('POST', '/feed');
  t.equal(rotate.json().rotated, true);
  t.equal((await quad.api.inject({ url: path })).statusCode, 404, 'the old URL stops working');
  t.equal((await quad.api.inject({ url: rotate.json().path })).statusCode, 200);
  t.equal((await quad.api.inject({ url: '/api/calendar/feed/not-a-token.ics' })).statusCode, 400);
  t.equal((await quad.api.inject({ url: `/api/calendar/feed/${'A'.repeat(43)}.ics` })).statusCode, 404, 'an unknown token: 404');
  await w.sql("update organizations set modules = modules || '{\"calendar\": false}'::jsonb where id = ?", [w.org.id]);
  const off = await quad.api.inject({ url: rotate.json().path });
  await w.sql("update organizations set modules = modules || '{\"calendar\": true}'::jsonb where id = ?", [w.org.id]);
  t.equal(off.statusCode, 404, 'module off: the same 404');
  t.same(off.json(), (await quad.api.inject({ url: `/api/calendar/feed/${'A'.repeat(43)}.ics` })).json(), 'which says nothing about the org');
  t.equal((await w.call('DELETE', '/feed')).statusCode, 200);
  t.equal((await quad.api.inject({ url: rotate.json().path })).statusCode, 404, 'revoked');
});

t.test('Discord sync: copies scheduled events, follows changes and cancellations, keeps past ones', async (t) => {
  const NOW = '2026-11-20T12:00:00.000Z';
  t.match((await w.call('GET', '/settings')).json(), { discord_sync: false, discord_bound: true, last_sync: null });
  t.equal((await w.call('POST', '/sync')).json().reason, 'sync_off');
  const talk = discord.putScheduledEvent(w.guildId, { name: 'Guest talk', description: 'With Q&A', scheduled_start_time: '2026-12-03T23:00:00.000Z', scheduled_end_time: '2026-12-04T00:30:00.000Z', location: 'Auditorium' });
  const stream = discord.putScheduledEvent(w.guildId, { name: 'Stream', scheduled_start_time: '2026-12-05T20:00:00.000Z' });
  const past = discord.putScheduledEvent(w.guildId, { name: 'Kickoff', scheduled_start_time: '2026-11-01T20:00:00.000Z', scheduled_end_time: '2026-11-01T21:00:00.000Z' });
  discord.putScheduledEvent(w.guildId, { name: 'Called off', scheduled_start_time: '2026-12-06T20:00:00.000Z', status: 4 });
  t.match((await w.call('PUT', '/settings', { discord_sync: true })).json(), { discord_sync: true });
  await w.runJob(SYNC_JOB, { now: NOW });
  const synced = async () => w.sql<{ id: number; title: string; discord_event_id: string; end_at: Date; sequence: number; location: string }>(
    "select id, title, discord_event_id, end_at, sequence, location from calendar_events where organization_id = ? and source = 'discord' order by title", [w.org.id]);
  let rows = await synced();
  t.same(rows.map((r) => r.title), ['Guest talk', 'Kickoff', 'Stream'], 'the canceled one is not copied');
  t.equal(new Date(rows.find((r) => r.title === 'Stream')!.end_at).toISOString(), '2026-12-05T21:00:00.000Z', 'no end: one hour');
  t.equal(rows.find((r) => r.title === 'Guest talk')!.location, 'Auditorium');
  t.match((await w.call('GET', '/settings')).json(), { last_sync: { at: NOW, error: null, changes: 3 } });

  const talkId = rows.find((r) => r.title === 'Guest talk')!.id;
  const view = (await w.call('GET', `/events/${talkId}`)).json();
  t.match(view, { source: 'discord', read_only: true, time_zone: 'UTC', public: true });
  t.equal((await w.call('PUT', `/events/${talkId}`, { title: 'Mine now' })).json().reason, 'synced_event');
  t.equal((await w.call('DELETE', `/events/${talkId}`)).statusCode, 409);

  discord.putScheduledEvent(w.guildId, { ...talk, name: 'Guest talk (moved)', scheduled_start_time: '2026-12-03T22:00:00.000Z' });
  discord.removeScheduledEvent(w.guildId, stream.id);
  discord.removeScheduledEvent(w.guildId, past.id);
  await w.runJob(SYNC_JOB, { now: NOW });
  rows = await synced();
  t.same(rows.map((r) => r.title), ['Guest talk (moved)', 'Kickoff'], 'the deleted future event goes, the past one stays');
  t.equal(rows[0]!.sequence, 1, 'a change bumps SEQUENCE');
  await w.runJob(SYNC_JOB, { now: NOW });
  t.equal((await synced())[0]!.sequence, 1, 'an unchanged event is left alone');
  t.match((await w.call('GET', '/settings')).json(), { last_sync: { changes: 0 } });

  const problems = () => w.sql<{ status: string; message: string }>("select status, message from notifications where organization_id = ? and problem_key = 'calendar.sync_failed'", [w.org.id]);
  discord.down(true);
  await t.rejects(w.runJob(SYNC_JOB, { now: NOW }), /calendar.sync_discord: Discord did not list/);
  discord.down(false);
  t.match(await problems(), [{ status: 'open', message: /Discord did not list the server's scheduled events/ }], 'a problem is raised');
  t.match((await w.call('GET', '/settings')).json(), { last_sync: { error: /Discord/, changes: null } });
  t.equal((await synced()).length, 2, 'a failed run changes nothing');
  await w.runJob(SYNC_JOB, { now: NOW });
  t.same(await problems(), [], 'a good run clears it');

  const started = await w.call('POST', '/sync');
  t.equal(started.statusCode, 202, started.body);
  t.equal((await w.call('POST', '/sync')).json().reason, 'job_running', 'one at a time');

  const queued = async () => (await w.sql<{ org: number }>(
    "select (payload->>'__quad_org')::int as org from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'calendar.sync_discord'")).map((r) => r.org);
  await w.sql("insert into calendar_settings (organization_id, discord_sync) values (?, true), (?, true)", [w.beta.id, gamma.id]);
  await w.runJob(SYNC_DUE_JOB, {}, null);
  t.same((await queued()).sort(), [w.org.id, w.beta.id].sort(), 'acm (already queued) and beta; gamma has the module off');

  t.match((await w.call('PUT', '/settings', { discord_sync: false })).json(), { discord_sync: false });
  t.same(await synced(), [], 'turning sync off deletes the copies');
  await w.runJob(SYNC_JOB, { now: NOW });
  t.same(await synced(), [], 'a run queued before sync went off does nothing');
});

t.test('tools: scopes, save (create and change), delete with confirm', async (t) => {
  const read = (await quad.issueToken(w.org.id, { scopes: ['calendar:read'] })).token;
  const manage = (await quad.issueToken(w.org.id, { scopes: ['calendar:manage', 'calendar:read'] })).token;
  const tool = (name: string, args: unknown, as = manage) => quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(as), payload: { name, arguments: args } });
  t.equal((await tool('calendar.save', { title: 'x' }, read)).json().reason, 'unknown_tool', 'calendar:read cannot save');
  const listed = (await tool('calendar.events', { from: '2026-10-25T00:00:00Z', to: '2026-11-15T00:00:00Z' }, read)).json().result;
  t.equal(listed.occurrences.length, 7, JSON.stringify(listed).slice(0, 300));
  t.equal((await tool('calendar.events', { from: '2026-01-01T00:00:00Z', to: '2028-01-01T00:00:00Z' }, read)).json().reason, 'window_too_long');
  t.match((await tool('calendar.save', { title: 'No times' })).json(), { reason: 'validation', error: /start_at/ });
  const made = (await tool('calendar.save', { title: 'Workshop', start_at: '2026-12-10T17:00:00-05:00', end_at: '2026-12-10T19:00:00-05:00', time_zone: NY, recurrence: 'FREQ=MONTHLY;BYDAY=2TH;COUNT=3' })).json();
  t.match(made.result, { created: true, event: { title: 'Workshop', recurrence: 'FREQ=MONTHLY;BYDAY=2TH;COUNT=3' } });
  const id = made.result.event.id;
  t.match((await tool('calendar.save', { id, location: 'Lab' })).json().result, { created: false, event: { location: 'Lab', sequence: 1 } });
  t.match((await tool('calendar.delete', { id })).json(), { confirm_required: true });
  t.equal((await w.call('GET', `/events/${id}`)).statusCode, 200, 'not deleted without confirm');
  t.same((await tool('calendar.delete', { id, confirm: true })).json().result, { deleted: id });
  t.equal((await w.call('GET', `/events/${id}`)).statusCode, 404);
});

t.test('org boundaries: another org\'s ids are 404 and its routes refuse this officer', async (t) => {
  const betaToken = (await quad.issueToken(w.beta.id, { scopes: ['calendar:manage', 'calendar:read'] })).token;
  const tool = (name: string, args: unknown) => quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(betaToken), payload: { name, arguments: args } });
  t.equal((await tool('calendar.save', { id: ids.weekly, title: 'Taken' })).json().reason, 'event_not_found');
  t.equal((await tool('calendar.delete', { id: ids.weekly, confirm: true })).json().reason, 'event_not_found');
  t.same((await tool('calendar.events', { from: '2026-10-25T00:00:00Z', to: '2026-11-15T00:00:00Z' })).json().result.events, []);
  t.equal((await w.call('GET', `/events/${ids.weekly}`)).json().title.startsWith('Hack night'), true, 'untouched');
  // ACCESS_ENFORCE is off by default (report mode): the request goes through, bound to beta's data only.
  const res = await w.call('GET', '/events?from=2026-10-25T00:00:00Z&to=2026-11-15T00:00:00Z', undefined, 'beta');
  t.same(res.json().events, [], 'beta\'s routes read beta\'s rows');
  t.equal((await w.call('GET', `/events/${ids.weekly}`, undefined, 'beta')).statusCode, 404, 'acm\'s id under beta: 404');
  t.equal((await w.call('PUT', `/events/${ids.weekly}`, { title: 'x' }, 'beta')).statusCode, 404);
  t.equal((await w.call('DELETE', `/events/${ids.weekly}`, undefined, 'beta')).statusCode, 404);
  t.equal((await quad.api.inject({ url: '/api/calendar/acm/events' })).statusCode, 401, 'no token: 401');
  t.equal((await w.call('GET', '/events', undefined, 'gamma')).json().reason, 'module_off', 'calendar off: 404');
});
