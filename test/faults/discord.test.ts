// Discord down or slow (issue 22), through the real routes of two processes sharing one fake Discord: one with
// ACCESS_ENFORCE=true, one with false. Each fault is the fake answering 502 (its proxy in an outage), closing every
// connection before an answer (unreachable), or holding the request past DISCORD_TIMEOUT_MS (slow); routes whose
// answer ACCESS_ENFORCE does not change get every fault in one process and the 502 in the other. For each: the officer and member sign-in callbacks answer 503 and write nothing (no user, no one-time code, no
// session), the access checks of an officer and a member route refuse with 503 bot_unavailable or go through with
// a would_deny line as ACCESS_ENFORCE says, and the agents' turn routes answer 503 and commit nothing. Every error
// is the fixed JSON with no address, stack or secret, no error-log row is written, a failure is never cached, and
// the same request succeeds once Discord is back, with no restart.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { captureLogs, startTestApp, type TestApp } from '@quad/core/testing';
import probe from '../fixtures/probe-module.js';
import { bearer, cookieFrom, officerLogin, startSignInWorld } from '../support/sign-in.js';

// Short, so a slow case costs a second, but well above a loaded machine's pauses: calls that should succeed share it.
const TIMEOUT_MS = 1000;
const PLUGINS = [probe, './plugins/agents'];
const MODULES = { probe: true, agents: true };
const CHANNEL = '910000000000000001';
const BOT_UNAVAILABLE = 'Discord is unavailable; try again shortly';

const enforceLogs = captureLogs();
const world = await startSignInWorld(t, {
  plugins: PLUGINS, orgModules: MODULES, role: 'api', logger: enforceLogs.logger,
  config: { ACCESS_ENFORCE: true, DISCORD_TIMEOUT_MS: TIMEOUT_MS },
});
const { discord, guildId, officerRoleId } = world;
const reportLogs = captureLogs();
const reportQuad = await startTestApp(t, {
  plugins: PLUGINS, role: 'api', logger: reportLogs.logger,
  config: { ...world.discordConfig, ACCESS_ENFORCE: false, DISCORD_TIMEOUT_MS: TIMEOUT_MS },
});
const reportOrg = await reportQuad.createOrg({ prefix: 'acm', discordGuildId: guildId, officerRoleId, modules: MODULES });

interface Mode { name: string; enforce: boolean; quad: TestApp; orgId: number; logs: ReturnType<typeof captureLogs> }
const MODES: Mode[] = [
  { name: 'ACCESS_ENFORCE=true', enforce: true, quad: world.quad, orgId: world.org.id, logs: enforceLogs },
  { name: 'ACCESS_ENFORCE=false', enforce: false, quad: reportQuad, orgId: reportOrg.id, logs: reportLogs },
];

type Fault = 'answers 502' | 'unreachable' | 'slow';
const FAULTS: Fault[] = ['answers 502', 'unreachable', 'slow'];

/**
 * The faults to try on a route whose answer ACCESS_ENFORCE does not change (callbacks, turns): every fault in one
 * mode; in the other one fault shows the answer is the same (the transport's failures are the same code path).
 */
const modeBlind = <C extends { fault: Fault }>(mode: Mode, cases: C[]) => (mode.enforce ? cases : cases.filter((c) => c.fault === 'answers 502'));

/**
 * Runs `request` while Discord has the fault (a slow Discord holds only the paths `only` matches), then mends it.
 * `held` is how many requests the fake was still holding when the answer came: a slow Discord was not waited for.
 */
async function during(fault: Fault, request: () => Promise<LightMyRequestResponse>, only?: RegExp) {
  if (fault === 'answers 502') discord.down(true);
  else if (fault === 'unreachable') discord.unreachable(true);
  else discord.hold(true, only);
  try {
    const res = await request();
    return { res, held: discord.holding };
  } finally {
    discord.down(false);
    discord.unreachable(false);
    discord.hold(false);
  }
}

/** A slow Discord's request was still unanswered when Quad answered: it gave up at its timeout. */
function gaveUpEarly(t: Test, fault: Fault, held: number) {
  if (fault === 'slow') t.ok(held >= 1, 'answered while Discord still held the request');
}

/** The JSON error of an outage: status, reason, and nothing of the address, a stack or a secret. */
function outage(t: Test, res: LightMyRequestResponse, reason: string, error: string | RegExp = BOT_UNAVAILABLE) {
  t.equal(res.statusCode, 503, res.body);
  t.match(res.headers['content-type'], /^application\/json/);
  const body = res.json();
  t.equal(body.reason, reason);
  t.match(body.error, error);
  const port = new URL(discord.url).port;
  for (const leak of ['127.0.0.1', `:${port}`, discord.botToken, discord.clientSecret, '    at ', 'stack']) {
    t.notOk(res.body.includes(leak), `the body holds no ${JSON.stringify(leak)}`);
  }
}

const sql = async (quad: TestApp, text: string, params: unknown[] = []) =>
  (await quad.orm.em.fork().getConnection().execute(text, params as never[])) as Record<string, any>[];

/** What a failed request must leave as it was. */
async function rows(quad: TestApp) {
  const [row] = await sql(quad, `select
      (select count(*) from users)::int as users, (select count(*) from sign_in_codes)::int as codes,
      (select count(*) from refresh_tokens)::int as refresh_tokens, (select count(*) from audit_log)::int as audit,
      (select count(*) from error_log)::int as errors, (select count(*) from agents_conversations)::int as conversations,
      (select count(*) from agents_messages)::int as messages,
      (select config -> 'branding' from organizations where prefix = 'acm') as branding`);
  return row;
}

const userRows = async (quad: TestApp, chatUserId: string) =>
  (await sql(quad, 'select count(*)::int as n from users where chat_user_id = ?', [chatUserId]))[0]!.n as number;

const times = (logs: Mode['logs'], line: string) => logs.messages().filter((m) => m === line).length;

let people = 0;
/** A new Discord user on the org's server (an officer with `officer`), whose roles no process has read yet. */
function newcomer(officer: boolean) {
  const user = discord.addUser({ username: `person${++people}` });
  discord.addMember(guildId, user.id, officer ? [officerRoleId] : []);
  return user;
}

/** Login and Discord's authorize page, up to the callback the browser is sent to (its path and the session cookie). */
async function toCallback(quad: TestApp, start: string, userId: string) {
  const login = await quad.api.inject(start);
  if (login.statusCode !== 302) throw new Error(`${start} answered ${login.statusCode}: ${login.body}`);
  discord.signInAs(userId);
  const back = new URL((await fetch(login.headers.location as string, { redirect: 'manual' })).headers.get('location')!);
  return { url: `${back.pathname}${back.search}`, cookie: cookieFrom(login) };
}

for (const mode of MODES) {
  const { quad } = mode;

  t.test(`${mode.name}: officer sign-in callback`, async (t) => {
    const cases: { fault: Fault; only?: RegExp; what: string }[] = [
      { fault: 'answers 502', what: 'Discord answers 502' },
      { fault: 'unreachable', what: 'Discord is unreachable' },
      { fault: 'slow', only: /\/oauth2\/token$/, what: 'the code exchange outlasts the timeout' },
      { fault: 'slow', only: /\/guilds\//, what: 'the role read outlasts the timeout, after the code exchange succeeded' },
    ];
    for (const { fault, only, what } of modeBlind(mode, cases)) {
      t.test(what, async (t) => {
        const user = newcomer(true);
        const callback = await toCallback(quad, '/api/auth/login', user.id);
        const before = await rows(quad);
        const { res, held } = await during(fault, () => quad.api.inject({ url: callback.url, headers: { cookie: callback.cookie } }), only);
        outage(t, res, 'bot_unavailable');
        gaveUpEarly(t, fault, held);
        t.notOk(res.headers['set-cookie'], 'the session (and its sign-in state) is left as it was');
        t.same(await rows(quad), before, 'no user, no one-time code, no error-log row');
        t.equal(await userRows(quad, user.id), 0);

        if (fault === 'slow') {
          // Discord may have used its code while we waited: the browser starts the sign-in again.
          const again = await officerLogin({ quad, discord }, user.id);
          t.ok(again.code, 'a new sign-in gets a one-time code');
        } else {
          // Discord never saw the code: the same callback (a reload) works once it is back.
          const retry = await quad.api.inject({ url: callback.url, headers: { cookie: callback.cookie } });
          t.equal(retry.statusCode, 302, retry.body);
          const code = new URL(retry.headers.location as string).searchParams.get('code');
          t.ok(code, 'the same callback gets a one-time code');
          const pair = await quad.api.inject({ method: 'POST', url: '/api/auth/exchange', payload: { code } });
          t.equal(pair.statusCode, 200, 'and the code is good for a token pair');
        }
        t.equal(await userRows(quad, user.id), 1, 'the user is kept once the sign-in succeeds');
      });
    }
  });

  t.test(`${mode.name}: member sign-in callback`, async (t) => {
    const cases: { fault: Fault; only?: RegExp; what: string }[] = [
      { fault: 'answers 502', what: 'Discord answers 502' },
      { fault: 'unreachable', what: 'Discord is unreachable' },
      { fault: 'slow', only: /\/users\/@me$/, what: 'reading the user outlasts the timeout, after the code exchange succeeded' },
    ];
    for (const { fault, only, what } of modeBlind(mode, cases)) {
      t.test(what, async (t) => {
        const user = newcomer(false);
        const callback = await toCallback(quad, '/api/accounts/chat/login', user.id);
        const before = await rows(quad);
        const { res, held } = await during(fault, () => quad.api.inject({ url: callback.url, headers: { cookie: callback.cookie } }), only);
        outage(t, res, 'bot_unavailable');
        gaveUpEarly(t, fault, held);
        t.notOk(res.headers['set-cookie'], 'no member session is written');
        t.same(await rows(quad), before, 'no user, no error-log row');

        const next = fault === 'slow' ? await toCallback(quad, '/api/accounts/chat/login', user.id) : callback;
        const retry = await quad.api.inject({ url: next.url, headers: { cookie: next.cookie } });
        t.equal(retry.statusCode, 200, retry.body);
        t.same(retry.json(), { chat_user_id: user.id, username: user.username });
        t.ok(retry.headers['set-cookie'], 'the session is written once Discord answers');
        t.equal(await userRows(quad, user.id), 1);
      });
    }
  });

  t.test(`${mode.name}: the access check of an officer route (PUT branding)`, async (t) => {
    const officer = newcomer(true);
    const token = quad.api.jwt.sign({ username: officer.username, chat_user_id: officer.id, type: 'access', jti: `fault-${officer.id}` }, { iss: 'quad', expiresIn: 600 } as never);
    const line = `access decision=${mode.enforce ? 'deny' : 'would_deny'} reason=bot_unavailable route=/api/dashboard/:org/branding org=acm credential=access_token`;
    const put = (accent: string) => () => quad.api.inject({ method: 'PUT', url: '/api/dashboard/acm/branding', headers: bearer(token), payload: { accent_color: accent } });

    for (const [i, fault] of FAULTS.entries()) {
      t.test(fault, async (t) => {
        const accent = `#00000${i}`;
        const before = await rows(quad);
        const logged = times(mode.logs, line);
        const { res, held } = await during(fault, put(accent));
        gaveUpEarly(t, fault, held);
        t.equal(times(mode.logs, line), logged + 1, `one line: ${line}`);
        if (mode.enforce) {
          outage(t, res, 'bot_unavailable');
          t.same(await rows(quad), before, 'refused: the branding, the audit log and the error log are as they were');
        } else {
          t.equal(res.statusCode, 200, 'report mode: the request goes through');
          t.equal(res.json().accent_color, accent);
          const after = await rows(quad);
          t.same({ ...after, audit: before.audit, branding: null }, { ...before, branding: null }, 'nothing but the change and its audit row');
          t.equal(after.audit, before.audit + 1);
          t.equal(after.branding.accent_color, accent);
        }
      });
    }

    t.test('Discord back: the same request passes, and the answer is cached from then on', async (t) => {
      const logged = times(mode.logs, line);
      const ok = await put('#ABCDEF')();
      t.equal(ok.statusCode, 200, ok.body);
      t.equal(ok.json().accent_color, '#ABCDEF');
      t.equal(times(mode.logs, line), logged, 'no access line: the check passed');
      // The failures above were not remembered, the success is (60 s): a new outage does not touch this officer.
      const { res } = await during('answers 502', put('#123456'));
      t.equal(res.statusCode, 200);
      t.equal(times(mode.logs, line), logged);
    });
  });

  t.test(`${mode.name}: the access check of a member route`, async (t) => {
    const member = newcomer(false);
    const callback = await toCallback(quad, '/api/accounts/chat/login', member.id);
    const cookie = cookieFrom(await quad.api.inject({ url: callback.url, headers: { cookie: callback.cookie } }));
    const line = `access decision=${mode.enforce ? 'deny' : 'would_deny'} reason=bot_unavailable route=/api/probe/:org/member org=acm credential=session`;
    const get = () => quad.api.inject({ url: '/api/probe/acm/member', headers: { cookie } });

    for (const fault of FAULTS) {
      t.test(fault, async (t) => {
        const before = await rows(quad);
        const logged = times(mode.logs, line);
        const { res, held } = await during(fault, get);
        gaveUpEarly(t, fault, held);
        t.equal(times(mode.logs, line), logged + 1, `one line: ${line}`);
        if (mode.enforce) outage(t, res, 'bot_unavailable');
        else t.same([res.statusCode, res.json().actor], [200, `member:${member.id}`], 'report mode: the request goes through');
        t.same(await rows(quad), before);
      });
    }

    t.test('Discord back: the same request passes', async (t) => {
      const logged = times(mode.logs, line);
      const ok = await get();
      t.equal(ok.statusCode, 200, ok.body);
      t.equal(times(mode.logs, line), logged);
    });
  });

  t.test(`${mode.name}: agent turn routes answer 503 whatever ACCESS_ENFORCE says`, async (t) => {
    const { token } = await quad.issueToken(mode.orgId, { scopes: ['agents:read', 'agents:write'], kind: 'agent' });
    const memberId = world.member.id;
    const conversation = randomUUID();
    const context = () => quad.api.inject({
      method: 'POST', url: `/api/agents/members/${memberId}/turn/context`, headers: bearer(token),
      payload: { conversation_id: conversation, visibility: 'private' },
    });
    const commit = () => quad.api.inject({
      method: 'POST', url: `/api/agents/members/${memberId}/turn/commit`, headers: bearer(token),
      payload: { conversation_id: conversation, channel_id: CHANNEL, visibility: 'private', messages: [{ role: 'user', content: 'hello' }], memories: [{ kind: 'task', content: 'say hi back' }] },
    });
    const memories = async () => (await sql(quad, 'select count(*)::int as n from agents_memories'))[0]!.n as number;

    for (const { fault } of modeBlind(mode, FAULTS.map((fault) => ({ fault })))) {
      t.test(fault, async (t) => {
        const before = { ...(await rows(quad)), memories: await memories() };
        for (const request of [context, commit]) {
          const { res, held } = await during(fault, request);
          outage(t, res, 'chat_platform_unavailable', /^Membership cannot be checked: /);
          gaveUpEarly(t, fault, held);
        }
        t.same({ ...(await rows(quad)), memories: await memories() }, before, 'the commit wrote nothing: no conversation, message or memory');
      });
    }

    t.test('Discord back: the same commit is written whole and read back', async (t) => {
      const res = await commit();
      t.equal(res.statusCode, 201, res.body);
      t.same(res.json().seqs, [1]);
      t.equal(res.json().memory_ids.length, 1);
      const read = await context();
      t.equal(read.statusCode, 200, read.body);
      t.same(read.json().conversation, { id: conversation, owned: true });
      t.same(read.json().messages.map((m: { content: string }) => m.content), ['hello']);
    });
  });
}
