// The feed writer and the recurrence expander without a server: folding and escaping at their edges, VTIMEZONEs
// of zones with southern-hemisphere DST, none, or UTC that ical.js reads back to the same instants, and rules whose
// expansion must stay bounded.
import t from 'tap';
import ICAL from 'ical.js';
import { escapeText, fold, writeFeed, type FeedEvent } from '../ics.js';
import { occurrences, parseRule, MAX_STEPS } from '../recurrence.js';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const event = (over: Partial<FeedEvent>): FeedEvent => ({
  uid: 'e@quad', title: 't', description: '', location: '', start: 0, end: 0, zone: 'UTC', allDay: false, recurrence: null,
  sequence: 0, created: NOW, updated: NOW, ...over,
});

t.test('folding and escaping', async (t) => {
  t.equal(escapeText('a\\b;c,d\r\ne\nf'), 'a\\\\b\\;c\\,d\\ne\\nf');
  const line = `SUMMARY:${'é'.repeat(100)}`;
  const folded = fold(line).split('\r\n');
  t.ok(folded.every((l) => Buffer.byteLength(l) <= 75), 'every line 75 octets or fewer');
  t.ok(folded.slice(1).every((l) => l.startsWith(' ')), 'continuations start with a space');
  t.equal(folded.map((l, i) => (i ? l.slice(1) : l)).join(''), line, 'unfolds to the line, no character split');
  t.equal(fold('short'), 'short');
});

t.test('zones: ical.js reads back the instants we meant', async (t) => {
  const cases = [
    // Sydney: DST from October to April; weekly Tuesday 19:00 across its start (2026-10-04).
    { zone: 'Australia/Sydney', start: '2026-09-22T19:00:00+10:00', rule: 'FREQ=WEEKLY;COUNT=3', want: ['2026-09-22T09:00:00.000Z', '2026-09-29T09:00:00.000Z', '2026-10-06T08:00:00.000Z'] },
    { zone: 'Asia/Tokyo', start: '2026-03-01T09:00:00+09:00', rule: 'FREQ=MONTHLY;COUNT=2', want: ['2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'] },
    { zone: 'UTC', start: '2026-03-28T12:00:00Z', rule: 'FREQ=DAILY;COUNT=2', want: ['2026-03-28T12:00:00.000Z', '2026-03-29T12:00:00.000Z'] },
  ];
  const events = cases.map((c, i) => {
    const start = Date.parse(c.start);
    return event({ uid: `${i}@quad`, zone: c.zone, start, end: start + 3_600_000, recurrence: parseRule(c.rule, { start, zone: c.zone, allDay: false }).text });
  });
  const text = writeFeed({ name: 'Org, with; specials', events, now: NOW });
  const calendar = new ICAL.Component(ICAL.parse(text));
  t.match(text, /\r\nX-WR-CALNAME:Org\\, with\\; specials\r\n/, 'the name escaped as TEXT (ical.js leaves X- values raw)');
  t.same(calendar.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid')), ['Asia/Tokyo', 'Australia/Sydney'], 'none for UTC');
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  calendar.getAllSubcomponents('vevent').forEach((v, i) => {
    const it = new ICAL.Event(v).iterator();
    const got: string[] = [];
    for (let next = it.next(); next; next = it.next()) got.push(next.toJSDate().toISOString());
    t.same(got, cases[i]!.want, cases[i]!.zone);
    // Our own expander agrees.
    const e = events[i]!;
    const ours = occurrences({ start: e.start, end: e.end, zone: e.zone, allDay: false, rule: parseRule(e.recurrence!, { start: e.start, zone: e.zone, allDay: false }).rule }, 0, Date.UTC(2030, 0, 1), 100);
    t.same(ours.list.map((o) => new Date(o.start).toISOString()), cases[i]!.want);
  });
  t.match(text, /DTSTART;TZID=Australia\/Sydney:20260922T190000\r\n/);
  t.match(text, /DTSTART:20260328T120000Z\r\n/);
});

t.test('bounded expansion: caps and rules that match rarely', async (t) => {
  const start = Date.parse('2026-01-01T10:00:00Z');
  const daily = parseRule('FREQ=DAILY', { start, zone: 'UTC', allDay: false }).rule;
  const capped = occurrences({ start, end: start + 60_000, zone: 'UTC', allDay: false, rule: daily }, start, start + 400 * 86_400_000, 50);
  t.equal(capped.list.length, 50);
  t.equal(capped.truncated, true);
  // The 5th Monday of a month happens a few times a year; the 31st only in long months.
  const fifth = parseRule('FREQ=MONTHLY;BYDAY=5MO', { start, zone: 'UTC', allDay: false }).rule;
  const found = occurrences({ start, end: start + 60_000, zone: 'UTC', allDay: false, rule: fifth }, start, Date.UTC(2027, 0, 1), 100);
  t.ok(found.list.length >= 4 && found.list.length <= 6, `${found.list.length} fifth Mondays in 2026`);
  const leap = parseRule('FREQ=YEARLY;BYMONTHDAY=-1', { start, zone: 'UTC', allDay: false }).rule;
  t.ok(occurrences({ start, end: start + 60_000, zone: 'UTC', allDay: false, rule: leap }, start, Date.UTC(2027, 0, 1), 100).list.length > 0);
  t.ok(MAX_STEPS >= 1000);
});
