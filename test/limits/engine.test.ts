// The limits engine against a real database: where a value comes from (override > LIMIT_<KEY> > default), rate
// windows at UTC boundaries (with a fixed clock, no sleeping), consume and reserve semantics, a tool call's check
// and count of a rate, programming errors.
import t from 'tap';
import { roomInMinute, startTestApp } from '@quad/core/testing';
import { ConfigError } from '../../core/src/config/load.js';
import { forkFor, rawQueryOn } from '../../core/src/db/orm.js';
import { LimitsEngine, limitSettingName, parseLimitSetting, windowEnd, windowStart } from '../../core/src/limits/engine.js';
import { extraModule, quotaModule, QuotaThing } from './fixture.js';

t.test('pure helpers', async (t) => {
  t.equal(limitSettingName('knowledge.sources'), 'LIMIT_KNOWLEDGE_SOURCES');
  t.equal(limitSettingName('mcp.calls_per_minute'), 'LIMIT_MCP_CALLS_PER_MINUTE');
  t.same(parseLimitSetting(500), { ok: true, value: 500 });
  t.same(parseLimitSetting('500'), { ok: true, value: 500 });
  t.same(parseLimitSetting(' 12 '), { ok: true, value: 12 });
  t.same(parseLimitSetting('0'), { ok: true, value: 0 });
  t.same(parseLimitSetting('unlimited'), { ok: true, value: null });
  t.same(parseLimitSetting('UNLIMITED'), { ok: true, value: null });
  for (const bad of ['-1', '1.5', 'lots', '', '99999999999', -1, 1.5, true, null, [], {}]) {
    t.same(parseLimitSetting(bad), { ok: false }, `refuses ${JSON.stringify(bad)}`);
  }

  const at = new Date('2030-03-10T23:59:59.250Z');
  t.equal(windowStart('minute', at).toISOString(), '2030-03-10T23:59:00.000Z');
  t.equal(windowStart('hour', at).toISOString(), '2030-03-10T23:00:00.000Z');
  t.equal(windowStart('day', at).toISOString(), '2030-03-10T00:00:00.000Z');
  t.equal(windowEnd('minute', at).toISOString(), '2030-03-11T00:00:00.000Z');
  t.equal(windowEnd('hour', at).toISOString(), '2030-03-11T00:00:00.000Z');
  t.equal(windowEnd('day', at).toISOString(), '2030-03-11T00:00:00.000Z');
  const boundary = new Date('2030-03-11T00:00:00.000Z');
  t.equal(windowStart('day', boundary).toISOString(), '2030-03-11T00:00:00.000Z', 'a boundary starts the next window');
});

t.test('limits engine', async (t) => {
  const quad = await startTestApp(t, { plugins: [quotaModule, extraModule], config: { LIMIT_QUOTA_HOURLY: 'unlimited' } });
  const org = await quad.createOrg({ prefix: 'acm', modules: { quota: true } });
  const other = await quad.createOrg({ prefix: 'ieee', modules: { quota: true } });
  const limits = quad.services.limits;
  const em = (orgId = org.id) => forkFor(quad.orm, orgId);
  const sql = (q: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, params);
  const setOverride = (orgId: number, key: string, value: number | null | 'default') =>
    em(orgId).transactional((tem) => limits.setOverrides(tem, orgId, { [key]: value }, 'test'));

  t.test('value: override > LIMIT_<KEY> > default', async (t) => {
    t.same(await limits.value(em(), org.id, 'quota.things'), { value: 10, source: 'default' });
    t.same(await limits.value(em(), org.id, 'quota.pages_per_day'), { value: null, source: 'default' }, 'a null default is no limit');
    t.same(await limits.value(em(), org.id, 'quota.hourly'), { value: null, source: 'setting' }, 'LIMIT_QUOTA_HOURLY=unlimited');

    const withSettings = new LimitsEngine(quad.registry, (name) => ({ LIMIT_QUOTA_THINGS: '7', LIMIT_QUOTA_CALLS_PER_MINUTE: 3 } as Record<string, unknown>)[name]);
    t.same(await withSettings.value(em(), org.id, 'quota.things'), { value: 7, source: 'setting' });
    t.same(await withSettings.value(em(), org.id, 'quota.calls_per_minute'), { value: 3, source: 'setting' });

    await setOverride(org.id, 'quota.things', 4);
    t.same(await withSettings.value(em(), org.id, 'quota.things'), { value: 4, source: 'override' }, 'the override wins over the setting');
    t.same(await withSettings.value(em(other.id), other.id, 'quota.things'), { value: 7, source: 'setting' }, 'only for its org');
    await setOverride(org.id, 'quota.things', null);
    t.same(await withSettings.value(em(), org.id, 'quota.things'), { value: null, source: 'override' }, 'a null override is no limit');
    await setOverride(org.id, 'quota.hourly', 0);
    t.same(await limits.value(em(), org.id, 'quota.hourly'), { value: 0, source: 'override' }, 'an override of 0 wins over unlimited');
    await setOverride(org.id, 'quota.things', 'default');
    await setOverride(org.id, 'quota.hourly', 'default');
    t.same(await withSettings.value(em(), org.id, 'quota.things'), { value: 7, source: 'setting' }, '"default" removes the override');
    t.same(await limits.value(em(), org.id, 'quota.things'), { value: 10, source: 'default' });
  });

  t.test('a bad LIMIT_<KEY> fails clearly', async (t) => {
    const bad = new LimitsEngine(quad.registry, (name) => ({ LIMIT_QUOTA_THINGS: 'lots', LIMIT_QUOTA_HOURLY: -2, LIMIT_QUOTA_PAGES_PER_DAY: '9' } as Record<string, unknown>)[name]);
    t.same(bad.settingProblems(), [
      'LIMIT_QUOTA_THINGS: must be a whole number from 0 to 2147483647 or "unlimited" (got "lots")',
      'LIMIT_QUOTA_HOURLY: must be a whole number from 0 to 2147483647 or "unlimited" (got -2)',
    ]);
    t.throws(() => bad.checkSettings(), ConfigError);
    t.throws(() => bad.checkSettings(), /LIMIT_QUOTA_THINGS: must be a whole number.*\n.*LIMIT_QUOTA_HOURLY/);
    await t.rejects(bad.value(em(), org.id, 'quota.things'), { name: 'ConfigError', message: /LIMIT_QUOTA_THINGS/ }, 'and when read');
    t.same(await bad.value(em(), org.id, 'quota.pages_per_day'), { value: 9, source: 'setting' }, 'good ones still work');
    t.doesNotThrow(() => limits.checkSettings(), 'the app\'s settings are good');
  });

  t.test('rate windows start at UTC boundaries', async (t) => {
    let now = new Date('2030-01-01T10:59:59.500Z');
    const clocked = new LimitsEngine(quad.registry, () => undefined, { now: () => now });
    const minute = await clocked.consume(em(other.id), other.id, 'quota.calls_per_minute');
    await clocked.consume(em(other.id), other.id, 'quota.hourly', 2);
    await clocked.consume(em(other.id), other.id, 'quota.pages_per_day', 3);
    t.equal(minute.window_start.toISOString(), '2030-01-01T10:59:00.000Z');
    t.equal(minute.resets_at.toISOString(), '2030-01-01T11:00:00.000Z');
    const stored = async () => Object.fromEntries((await sql(
      "select key, to_char(window_start at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') as start, count from usage_counters where organization_id = ? order by key, window_start",
      [other.id],
    ) as { key: string; start: string; count: string }[]).map((r) => [`${r.key}@${r.start}`, Number(r.count)]));
    t.same(await stored(), {
      'quota.calls_per_minute@2030-01-01T10:59:00': 1,
      'quota.hourly@2030-01-01T10:00:00': 2,
      'quota.pages_per_day@2030-01-01T00:00:00': 3,
    });

    // Fill the minute, then be refused until the window turns.
    await clocked.consume(em(other.id), other.id, 'quota.calls_per_minute', 4);
    const refused = await clocked.consume(em(other.id), other.id, 'quota.calls_per_minute').catch((e) => e);
    t.match(refused, { name: 'HttpError', statusCode: 429, reason: 'rate_limited', details: { limit: 'quota.calls_per_minute', value: 5, window: 'minute', retry_after: 1 } });
    now = new Date('2030-01-01T11:00:00.000Z');
    t.equal((await clocked.consume(em(other.id), other.id, 'quota.calls_per_minute')).use, 1, 'a new minute starts at the boundary');
    await clocked.consume(em(other.id), other.id, 'quota.hourly');
    await clocked.consume(em(other.id), other.id, 'quota.pages_per_day');
    now = new Date('2030-01-02T00:00:00.000Z');
    await clocked.consume(em(other.id), other.id, 'quota.pages_per_day');
    t.same(await stored(), {
      'quota.calls_per_minute@2030-01-01T10:59:00': 5,
      'quota.calls_per_minute@2030-01-01T11:00:00': 1,
      'quota.hourly@2030-01-01T10:00:00': 2,
      'quota.hourly@2030-01-01T11:00:00': 1,
      'quota.pages_per_day@2030-01-01T00:00:00': 4,
      'quota.pages_per_day@2030-01-02T00:00:00': 1,
    });
    now = new Date('2030-01-02T00:00:30.000Z');
    t.equal(await clocked.usage(em(other.id), other.id, 'quota.pages_per_day'), 1, 'usage reads the current window');
    t.equal(await clocked.usage(em(other.id), other.id, 'quota.calls_per_minute'), 0);
    const late = await clocked.consume(em(other.id), other.id, 'quota.calls_per_minute', 6).catch((e) => e);
    t.match(late, { statusCode: 429, details: { retry_after: 30 } }, 'retry_after: seconds until the window ends');
  });

  t.test('consume: 429 counts nothing; no limit counts but never refuses', async (t) => {
    await sql('delete from usage_counters');
    await roomInMinute();
    await limits.consume(em(), org.id, 'quota.calls_per_minute', 3);
    await t.rejects(limits.consume(em(), org.id, 'quota.calls_per_minute', 3), { name: 'HttpError', statusCode: 429 }, 'more than what is left');
    t.equal(await limits.usage(em(), org.id, 'quota.calls_per_minute'), 3, 'the refused amount was not counted');
    await limits.consume(em(), org.id, 'quota.calls_per_minute', 2);
    await t.rejects(limits.consume(em(), org.id, 'quota.calls_per_minute'), { name: 'HttpError', statusCode: 429 });
    t.equal(await limits.usage(em(), org.id, 'quota.calls_per_minute'), 5);
    await t.rejects(limits.consume(em(other.id), other.id, 'quota.calls_per_minute', 6), { name: 'HttpError', statusCode: 429 }, 'over the value in one call');
    t.equal(await limits.usage(em(other.id), other.id, 'quota.calls_per_minute'), 0);

    const big = await limits.consume(em(), org.id, 'quota.pages_per_day', 1_000_000);
    t.same([big.use, big.value], [1_000_000, null]);
    t.equal((await limits.consume(em(), org.id, 'quota.pages_per_day', 2_000_000_000)).use, 2_001_000_000, 'counted past the integer range');
    t.equal((await limits.consume(em(), org.id, 'quota.pages_per_day', 0)).use, 2_001_000_000, 'an amount of 0 counts nothing');

    await setOverride(org.id, 'quota.calls_per_minute', 0);
    await t.rejects(limits.consume(em(), org.id, 'quota.calls_per_minute'), { name: 'HttpError', statusCode: 429 }, 'a value of 0 refuses every use');
    await setOverride(org.id, 'quota.calls_per_minute', null);
    t.equal((await limits.consume(em(), org.id, 'quota.calls_per_minute', 100)).use, 105, 'a null override lifts it');
    await setOverride(org.id, 'quota.calls_per_minute', 'default');
  });

  t.test('consume is part of the caller\'s transaction; a 429 leaves it usable', async (t) => {
    await sql('delete from usage_counters');
    await t.rejects(em().transactional(async (tem) => {
      await limits.consume(tem, org.id, 'quota.calls_per_minute', 2);
      throw new Error('roll back');
    }), /roll back/);
    t.equal(await limits.usage(em(), org.id, 'quota.calls_per_minute'), 0, 'a rolled-back consume is not counted');

    await em().transactional(async (tem) => {
      await limits.consume(tem, org.id, 'quota.calls_per_minute', 5);
      await t.rejects(limits.consume(tem, org.id, 'quota.calls_per_minute'), { name: 'HttpError', statusCode: 429 });
      tem.create(QuotaThing, { organization: org.id, label: 'after a 429' });
      await tem.flush();
    });
    t.equal(await limits.usage(em(), org.id, 'quota.calls_per_minute'), 5);
    t.equal(await em().count(QuotaThing, { label: 'after a 429' }), 1, 'the transaction went on and committed');
    await sql('delete from quota_things');
  });

  t.test('checkRate trusts the use last seen counted below half the value; past it, it reads', async (t) => {
    const now = new Date('2031-05-05T10:00:30.000Z');
    const clocked = new LimitsEngine(quad.registry, () => undefined, { now: () => now });
    const key = 'quota.calls_per_minute'; // 5 a minute
    const check = () => clocked.checkRate(em(), org.id, key);
    const commit = async () => clocked.commitRate(rawQueryOn(em()), await check());
    // Another process's calls, unseen by this one.
    const setUse = (n: number) => sql(
      'update usage_counters set count = ? where organization_id = ? and key = ? and window_start = ?::timestamptz',
      [n, org.id, key, windowStart('minute', now).toISOString()],
    );

    t.equal((await commit()).use, 1, 'read (nothing seen yet), then counted');
    await setUse(5);
    await t.resolves(check(), 'at 1 of 5 seen, the check reads nothing');
    await t.rejects(commit(), { name: 'HttpError', statusCode: 429, reason: 'rate_limited' }, 'the count under the lock refuses it');
    await t.rejects(check(), { name: 'HttpError', statusCode: 429 }, 'refused at its count: the next check reads, and refuses');
    await setUse(2);
    await t.resolves(check(), 'read again: 2 of 5');
    await setUse(5);
    await t.rejects(check(), { name: 'HttpError', statusCode: 429 }, 'at 2 of 5 seen (not below half with this call), it reads');
    await sql('delete from usage_counters where organization_id = ?', [org.id]);
  });

  t.test('reserve: 409 over the value, nothing added', async (t) => {
    const create = (orgId: number, n: number) => forkFor(quad.orm, orgId).transactional(async (tem) => {
      await limits.reserve(tem, orgId, 'quota.things', n);
      for (let i = 0; i < n; i++) tem.create(QuotaThing, { organization: orgId, label: `t${i}` });
    });
    await create(org.id, 9);
    await t.rejects(create(org.id, 2), { name: 'HttpError', statusCode: 409, reason: 'limit_reached', details: { limit: 'quota.things', value: 10, use: 9 } });
    t.equal(await limits.usage(em(), org.id, 'quota.things'), 9, 'nothing was added');
    await create(org.id, 1);
    await t.rejects(create(org.id, 1), { name: 'HttpError', statusCode: 409 });
    t.equal(await limits.usage(em(), org.id, 'quota.things'), 10);
    await create(other.id, 1);
    t.equal(await limits.usage(em(other.id), other.id, 'quota.things'), 1, 'each org counts its own');
    await setOverride(org.id, 'quota.things', null);
    t.same(await forkFor(quad.orm, org.id).transactional((tem) => limits.reserve(tem, org.id, 'quota.things', 5)), { use: null, value: null }, 'no limit: never refused');
    await setOverride(org.id, 'quota.things', 'default');
    await sql('delete from quota_things');
  });

  t.test('programming errors are plain Errors', async (t) => {
    const notHttp = (err: unknown) => err instanceof Error && err.name === 'Error';
    const e = em();
    const caught = async (p: Promise<unknown>) => p.then(() => null, (err) => err);
    for (const [label, call, message] of [
      ['unknown key', () => limits.value(e, org.id, 'quota.nope'), /no loaded module declares the limit "quota\.nope"/],
      ['consume on a count', () => limits.consume(e, org.id, 'quota.things'), /consume\(\) takes a rate limit; "quota\.things" is a count limit/],
      ['reserve on a rate', () => e.transactional((tem) => limits.reserve(tem, org.id, 'quota.calls_per_minute')), /reserve\(\) takes a count limit/],
      ['reserve outside a transaction', () => limits.reserve(e, org.id, 'quota.things'), /must run inside the transaction/],
      ['a negative amount', () => limits.consume(e, org.id, 'quota.calls_per_minute', -1), /whole number/],
      ['a fractional amount', () => limits.consume(e, org.id, 'quota.calls_per_minute', 0.5), /whole number/],
      ['usage of an unknown key', () => limits.usage(e, org.id, 'nope.nope'), /no loaded module declares/],
    ] as const) {
      const err = await caught(call());
      t.ok(notHttp(err), `${label}: a plain Error`);
      t.match((err as Error).message, message, label);
    }
  });

  t.test('report: the modules that are on, with value, source and use', async (t) => {
    await sql('delete from usage_counters');
    await create3(org.id);
    await limits.consume(em(), org.id, 'quota.calls_per_minute', 4);
    await setOverride(org.id, 'quota.hourly', 50);
    const snapshot = { id: org.id, modules: { quota: true } };
    // Only the test modules' limits: core modules may declare their own.
    const ours = <T extends { module: string }>(entries: T[]) => entries.filter((e) => e.module === 'quota' || e.module === 'extra');
    const report = ours(await limits.report(em(), snapshot));
    t.same(report.map((e) => e.key), ['quota.things', 'quota.calls_per_minute', 'quota.pages_per_day', 'quota.hourly', 'quota.shared_pages']);
    const byKey = Object.fromEntries(report.map((e) => [e.key, e]));
    t.match(byKey['quota.things'], { module: 'quota', kind: 'count', window: null, value: 10, source: 'default', default: 10, use: 3, paid_by: 'org', integrations: [], description: 'things an org keeps', resets_at: null, near_limit: false });
    t.match(byKey['quota.calls_per_minute'], { kind: 'rate', window: 'minute', value: 5, use: 4, paid_by: 'metered', integrations: ['quota_api'], near_limit: true });
    t.ok(byKey['quota.calls_per_minute'].resets_at! > new Date().toISOString());
    t.match(byKey['quota.pages_per_day'], { value: null, source: 'default', use: 0, near_limit: false });
    t.match(byKey['quota.hourly'], { value: 50, source: 'override', default: 100, paid_by: 'org' });
    t.match(byKey['quota.shared_pages'], { kind: 'count', paid_by: 'shared', value: null });
    t.same(ours(await limits.report(em(), { id: org.id, modules: {} })), [], 'nothing when the module is off');
    const core = await limits.report(em(), { id: org.id, modules: {} });
    t.ok(core.every((e) => quad.registry.get(e.module)?.core), 'core modules\' limits are always listed');
    const withExtra = await limits.report(em(), { id: org.id, modules: { quota: true, extra: true } });
    t.ok(withExtra.some((e) => e.key === 'extra.widgets'), 'a module switched on is listed');
    await setOverride(org.id, 'quota.hourly', 'default');
    await sql('delete from quota_things');
  });

  async function create3(orgId: number) {
    await forkFor(quad.orm, orgId).transactional(async (tem) => {
      await limits.reserve(tem, orgId, 'quota.things', 3);
      for (let i = 0; i < 3; i++) tem.create(QuotaThing, { organization: orgId, label: `r${i}` });
    });
  }
});
