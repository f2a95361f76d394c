// Guardrail: the cross-org matrix. Every route the app serves and every tool in the registry is called by
// people of another org (an officer, a member with a Discord session, a storefront member, a machine token with
// every scope) and by no one, with the victim org and real ids of its rows in the path, query and body. Each
// answer must be a refusal (401, 403 or 404) unless the route is in OPEN below; no answer may carry a private
// value of the victim; and no row of the victim may change. Each org route is also called with the attacker's
// own org in the path and the victim's ids everywhere else: whatever the answer, nothing of the victim may show.
// Routes and tools are found in the running app, so one added later is covered without an edit here.
// CROSS_ORG_TRACE=<file> writes every call and the start of its answer there.
// tap: a process of its own (one of the longest files of the suite: alone, it runs beside the others).
import { appendFileSync } from 'node:fs';
import t from 'tap';
import { CREDENTIALS, privateValues, startCrossOrgWorld, type Category, type CredentialName, type Party, type PrivateValue } from './world.js';
import type { Test } from 'tap';
import { listRoutes, type RouteCase } from './routes.js';
import { attempts, rowIds, rowKeys, rowNames, rowUuids, toolArguments, type Attempt, type Target } from './requests.js';

/**
 * Routes that may answer an outsider with something other than a refusal, and why. Their answers are still
 * checked for the victim's private values (`shows`: the kinds they may show) and the victim's rows for changes.
 * `*` at the end matches a path prefix. Every entry must name a route that still answers an outsider.
 */
const OPEN: Record<string, { why: string; shows?: Category[] }> = {
  'GET /health': { why: 'the operators\' health report, for everyone' },
  'GET /health/live': { why: 'liveness probe, for everyone' },
  'GET /health/ready': { why: 'readiness probe, for everyone' },
  'GET /': { why: 'redirects to the API docs' },
  'GET /openapi.json': { why: 'the API description' },
  'GET /docs*': { why: 'the API docs UI' },
  'GET /dashboard*': { why: 'the officer dashboard\'s static page and files, and the page bundles of the enabled plugins (the data comes from the API)' },
  'GET /store/:org': { why: 'the member store\'s static page (the data comes from the API)' },
  'GET /store/:org/login': { why: 'the member store\'s static sign-in page' },
  'GET /agents/:org/me': { why: 'the member shell\'s static page for the agents module\'s member page (the data comes from the API, with the member\'s session)' },
  'OPTIONS *': { why: 'CORS preflight' },
  'GET /api/auth/login': { why: 'officer sign-in starts here (a redirect to Discord)' },
  'POST /api/auth/exchange': { why: 'officer sign-in: answers about the code sent only' },
  'POST /api/auth/revoke': { why: 'revokes the tokens the caller sends' },
  'POST /api/auth/logout': { why: 'revokes the tokens the caller sends' },
  'GET /api/auth/appToken': { why: 'makes an app token for the calling officer' },
  'GET /api/auth/appTokens': { why: 'the calling officer\'s own app tokens' },
  'GET /api/auth/me': { why: 'the calling officer and the orgs they are an officer of' },
  'GET /api/auth/machine/whoami': { why: 'the calling token itself' },
  'GET /api/accounts/chat/login': { why: 'member sign-in starts here (a redirect to Discord)' },
  'GET /api/compute/:org/cli/login': { why: 'the pods CLI sign-in starts here (a redirect to Discord); the token goes only to a member of the org\'s server' },
  'GET /api/tools': { why: 'the tools of the token\'s own org' },
  'POST /api/tools/batch': { why: 'tools run for the token\'s own org' },
  'GET /api/points/:org/public/leaderboard': { why: 'public leaderboard (spec: member details hidden)', shows: ['discord_id'] },
  'GET /api/points/:org/public/members': { why: 'public member list (spec: member details hidden)', shows: ['discord_id'] },
  'GET /api/storefront/:org/products': { why: 'public catalog' },
  'GET /api/storefront/:org/products/:id': { why: 'public catalog' },
  'GET /api/storefront/:org/store': { why: 'public store page' },
  'POST /api/storefront/:org/checkout': { why: 'any storefront member may shop with their own points in any org\'s storefront' },
  'GET /api/knowledge/sources': { why: 'the token\'s own org\'s sources (the org is the token\'s)' },
  'PUT /api/knowledge/sources/*': { why: 'writes a source of the token\'s own org (the org is the token\'s)' },
  'POST /api/knowledge/search': { why: 'searches the token\'s own org and public sources (the org is the token\'s)' },
  'PUT /api/knowledge/crawls/*': { why: 'writes a crawl record of the token\'s own org (the org is the token\'s)' },
  'PUT /api/agents/members/:chat_user_id/conversations/:uuid': { why: 'a conversation of the token\'s own org (the org is the token\'s)' },
  'GET /api/agents/members/:chat_user_id/conversations/:uuid': { why: 'whether a member of the token\'s own org owns it (the org is the token\'s)' },
  'GET /api/agents/members/:chat_user_id/channels/:channel/latest': { why: 'a conversation of the token\'s own org (the org is the token\'s)' },
  'POST /api/agents/members/:chat_user_id/channels/:channel/end': { why: 'ends conversations of the token\'s own org (the org is the token\'s)' },
  'PUT /api/agents/members/:chat_user_id/pending/:uuid': { why: 'holds an action in the token\'s own org (the org is the token\'s)' },
  'GET /api/agents/members/:chat_user_id/memories': { why: 'memories of a member of the token\'s own org (the org is the token\'s)' },
  'POST /api/agents/members/:chat_user_id/memories': { why: 'remembers for a member of the token\'s own org (the org is the token\'s)' },
  'GET /api/agents/members/:chat_user_id/profile': { why: 'the profile of a member of the token\'s own org (the org is the token\'s)' },
  'GET /api/agents/members/:chat_user_id/profile/matching': { why: 'the profile of a member of the token\'s own org (the org is the token\'s)' },
  'GET /api/agents/members/:chat_user_id/profile/similar': { why: 'the profile of a member of the token\'s own org (503 without an embedder)' },
  'POST /api/agents/members/:chat_user_id/profile/facts': { why: 'facts about a member of the token\'s own org (the org is the token\'s)' },
  'DELETE /api/agents/members/:chat_user_id/data': { why: 'deletes the data of a member of the token\'s own org (the org is the token\'s)' },
  'GET /api/submodules': { why: 'the submodules list for the token\'s own org (the org is the token\'s)' },
  'GET /api/submodules/:submodule/queries': { why: 'a submodule\'s live queries: shared content, no org data' },
  'PUT /api/submodules/:submodule/subscription': { why: 'subscribes the token\'s own org (the org is the token\'s)' },
  'POST /api/submodules/:submodule/sync': { why: 'subscribes the token\'s own org (legacy name; the org is the token\'s)' },
  'GET /api/campus/queries': { why: 'the campus submodule\'s live queries (legacy name): shared content, no org data' },
  'POST /api/campus/sync': { why: 'subscribes the token\'s own org (legacy name; the org is the token\'s)' },
  'PUT /api/campus/subscription': { why: 'subscribes the token\'s own org (legacy name; the org is the token\'s)' },
  'GET /api/calendar/:org/public/events': { why: 'the org\'s public events, for everyone (private events are left out)' },
  'GET /api/calendar/feed/:file': { why: 'the org\'s iCalendar feed: the unguessable token in the path is its credential' },
  'GET /api/hello/:org/greetings': { why: 'public in the example plugin' },
  'GET /api/hello/:org/tally': { why: 'public in the example plugin' },
};

const REFUSALS = new Set([401, 403, 404]);
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const openEntry = (key: string) => Object.keys(OPEN).find((e) => (e.endsWith('*') ? key.startsWith(e.slice(0, -1)) : e === key));
const hasOrg = (route: RouteCase) => route.path.split('/').includes(':org');
const lower = (s: string) => s.toLowerCase();

/**
 * Policies whose officer check report mode (ACCESS_ENFORCE=false, the spec's default) only logs: an officer of another
 * org, or an identity-provider caller, passes them, as the spec says. Every other check holds in both modes.
 */
const REPORTED_POLICIES = new Set(['officer', 'orgOfficer', 'officerOrMachine']);
const REPORTED_CREDENTIALS = new Set<CredentialName>(['officer', 'idp']);
/** Routes with a check of their own that report mode only logs (spec "Access checks"), for any caller, and why. */
const REPORTED_ROUTES: Record<string, string> = {
  'GET /api/auth/callback': 'oauth_state_mismatch (without Discord\'s code the answer is then 400)',
  'GET /api/accounts/chat/callback': 'oauth_state_mismatch (without Discord\'s code the answer is then 400)',
  'GET /api/compute/cli/callback': 'oauth_state_mismatch (without Discord\'s code the answer is then 400)',
  'POST /api/points/:org/member_login': 'member_login_unverified',
  'GET /api/storefront/:org/orders/:id': 'not_org_officer, checked in the handler for an officer reading any order',
};

for (const enforce of [true, false]) {
  t.test(`cross-org matrix, ACCESS_ENFORCE=${enforce}: routes and tools refuse outsiders, leak nothing and change nothing of another org`, (t) => matrix(t, enforce));
}

async function matrix(t: Test, enforce: boolean) {
  const world = await startCrossOrgWorld(t, { accessEnforce: enforce });
  const { quad, victim, attacker } = world;
  const routes = listRoutes(quad.api);
  /** The auth policy of each route, by `METHOD path` with its parameters unnamed. */
  const unnamed = (method: string, path: string) => `${method} ${path.replace(/:[^/]+/g, ':')}`;
  const policyOf = new Map(quad.api.registeredRoutes.flatMap((r) => ([] as string[]).concat(r.method)
    .map((m) => [unnamed(m, r.url), String((r.config as { auth?: string } | undefined)?.auth ?? '').split(':')[0]!] as const)));
  /** Report mode lets this credential of another org through this route's officer check. */
  const reported = (route: RouteCase, c: CredentialName) => !enforce && (route.key in REPORTED_ROUTES
    || (REPORTED_CREDENTIALS.has(c) && REPORTED_POLICIES.has(policyOf.get(unnamed(route.method, route.path)) ?? '')));
  /** The calls report mode lets through, made once the rest is checked: they may change the victim's rows. */
  const letThrough: { route: RouteCase; attempt: Attempt; c: CredentialName }[] = [];
  t.ok(routes.length >= 50, `${routes.length} routes found`);

  await t.test('every OPEN entry names a route the app serves', async (t) => {
    for (const entry of [...Object.keys(OPEN), ...Object.keys(REPORTED_ROUTES)]) t.ok(routes.some((r) => openEntry(r.key) === entry || r.key === entry), entry);
  });

  const targetOf = (orgRef: string, snapshot: Awaited<ReturnType<typeof world.snapshot>>): Target =>
    ({ orgRef, victimOrgId: victim.org.id, refs: victim.refs, ids: rowIds(snapshot), uuids: rowUuids(snapshot), keys: rowKeys(snapshot), names: rowNames(snapshot) });
  const victimRefs = [victim.org.prefix, String(victim.org.id)];

  // Controls, before the snapshot: the victim's own people reach every GET route that takes ids with these ids,
  // so a refusal below is about the caller, not a wrong id.
  await t.test('the ids used are real: the victim\'s own people get each GET route with them', async (t) => {
    const seed = await world.snapshot();
    const own: [string, Record<string, string>][] = [
      ...CREDENTIALS.map((c): [string, Record<string, string>] => [c, world.headers(victim, c)]),
      ['superadmin', { authorization: `Bearer ${world.adminToken}` }],
    ];
    for (const route of routes.filter((r) => r.method === 'GET' && r.path.includes('/:'))) {
      for (const orgRef of hasOrg(route) ? victimRefs : [victim.org.prefix]) {
        const [attempt] = attempts(route, targetOf(orgRef, seed), true);
        const answers: string[] = [];
        let reached = false;
        for (const [name, headers] of own) {
          const res = await world.call({ ...attempt!, headers });
          answers.push(`${name} ${res.statusCode}`);
          // A redirect is the route's answer too (a sign-in start sends the browser to Discord).
          if ((reached = res.statusCode < 400)) break;
        }
        t.ok(reached, `${route.key} ${attempt!.url}`, { answers });
      }
    }
  });

  const before = await world.snapshot();
  const secrets = privateValues(before, victim.extraPrivate);
  t.ok(secrets.filter((s) => s.category === 'email').length >= 1 && secrets.some((s) => s.category === 'student_id'), 'the victim has private member details');

  const problems = new Map<string, string[]>();
  const problem = (key: string, text: string) => problems.set(key, [...(problems.get(key) ?? []), text]);
  const opened = new Set<string>();
  /** Private values the attacker itself has sent (an echo of those is no leak). */
  const sent = new Set<string>();
  let calls = 0;

  async function attack(key: string, label: string, attempt: Attempt, headers: Record<string, string>, rule: { refuse: boolean; shows: Category[] }) {
    const request = lower(`${decodeURIComponent(attempt.url)} ${JSON.stringify(attempt.payload ?? '')}`);
    for (const s of secrets) if (request.includes(lower(s.value))) sent.add(s.value);
    const res = await world.call({ ...attempt, headers });
    calls++;
    if (process.env.CROSS_ORG_TRACE) appendFileSync(process.env.CROSS_ORG_TRACE, `${res.statusCode} ${key} | ${label} | ${attempt.url} ${JSON.stringify(attempt.payload ?? '')} | ${res.body.slice(0, 160)}\n`);
    const answer = lower(`${JSON.stringify(res.headers)} ${res.body}`);
    const leaked = secrets.filter((s: PrivateValue) => !rule.shows.includes(s.category) && !sent.has(s.value) && answer.includes(lower(s.value)));
    const where = `${label}: ${attempt.method} ${attempt.url}${attempt.payload === undefined ? '' : ` ${JSON.stringify(attempt.payload)}`}`;
    if (leaked.length) problem(key, `${where} -> ${res.statusCode} leaked ${leaked.map((l) => `${l.category} (${l.where})`).join(', ')}`);
    const refused = REFUSALS.has(res.statusCode);
    if (rule.refuse && !refused) problem(key, `${where} -> ${res.statusCode}, not a refusal: ${res.body.slice(0, 300)}`);
    else if (res.statusCode >= 500) problem(key, `${where} -> ${res.statusCode}: ${res.body.slice(0, 300)}`);
    if (!refused) {
      const entry = openEntry(key);
      if (entry) opened.add(entry);
      // A call that answered may have revoked the caller's own token (sign-out): sign in again for the next one.
      if (MUTATING.has(attempt.method)) await world.keepAttackerSignedIn();
    }
    return res;
  }

  // Rows are compared after each route and tool too, to name the one that changed them.
  let last = await world.fingerprint();
  async function rowsUnchangedBy(key: string) {
    const now = await world.fingerprint();
    const changed = Object.keys({ ...last, ...now }).filter((table) => now[table] !== last[table]);
    if (changed.length) problem(key, `changed rows of the victim in ${changed.join(', ')}`);
    last = now;
  }

  const as = (party: Party, c: CredentialName) => world.headers(party, c);
  const outsider = (c: CredentialName) => (c === 'none' ? 'no credential' : `${c} of another org`);

  for (const route of routes) {
    const entry = openEntry(route.key);
    const shows = entry ? OPEN[entry]!.shows ?? [] : [];
    if (hasOrg(route)) {
      // The victim org in the path (by prefix and by id): refused, unless open.
      for (const orgRef of victimRefs) {
        for (const attempt of attempts(route, targetOf(orgRef, before), true)) {
          for (const c of CREDENTIALS) {
            if (reported(route, c)) letThrough.push({ route, attempt, c });
            else await attack(route.key, outsider(c), attempt, as(attacker, c), { refuse: !entry, shows });
          }
        }
      }
      // The attacker's own org in the path and the victim's ids in the rest: whatever the answer, nothing of the victim.
      for (const attempt of attempts(route, targetOf(attacker.org.prefix, before))) {
        for (const c of CREDENTIALS.filter((x) => x !== 'none')) await attack(route.key, `${c} in its own org`, attempt, as(attacker, c), { refuse: false, shows: [] });
      }
    } else {
      for (const attempt of attempts(route, targetOf(victim.org.prefix, before))) {
        for (const c of CREDENTIALS) {
          if (reported(route, c)) letThrough.push({ route, attempt, c });
          else await attack(route.key, outsider(c), attempt, as(attacker, c), { refuse: !entry, shows });
        }
      }
    }
    await rowsUnchangedBy(route.key);
  }

  await t.test('tools: the attacker\'s token (every scope) with the victim\'s ids sees and changes nothing of the victim', async (t) => {
    const listed = await world.call({ method: 'GET', url: '/api/tools', headers: as(attacker, 'machine') });
    t.same(listed.json().tools.map((x: { name: string }) => x.name).sort(), [...quad.registry.tools.keys()].sort(), 'the token sees every tool');
    for (const tool of quad.registry.tools.values()) {
      for (const args of toolArguments(tool.name, tool.input as Record<string, unknown>, targetOf(victim.org.prefix, before))) {
        for (const confirm of [false, true]) {
          const attempt = { method: 'POST', url: '/api/tools/call', payload: { name: tool.name, arguments: args, ...(confirm && { confirm }) } };
          const res = await attack(`tool ${tool.name}`, 'machine token of another org', attempt, as(attacker, 'machine'), { refuse: false, shows: [] });
          if (res.json().reason === 'unknown_tool' || res.statusCode === 401 || res.statusCode === 429) problem(`tool ${tool.name}`, `the call did not reach the tool: ${res.statusCode} ${res.body}`);
        }
      }
      await rowsUnchangedBy(`tool ${tool.name}`);
      t.same(problems.get(`tool ${tool.name}`) ?? [], [], `tool ${tool.name}`);
    }
  });

  await t.test('routes: outsiders are refused and see nothing private', async (t) => {
    for (const route of routes) t.same(problems.get(route.key) ?? [], [], route.key);
  });

  await t.test('no row of the victim changed', async (t) => {
    const after = await world.snapshot();
    const lines = (rows: Record<string, unknown>[] = []) => rows.map((r) => JSON.stringify(r));
    for (const table of Object.keys({ ...before, ...after })) t.same(lines(after[table]), lines(before[table]), table);
  });

  if (!enforce) {
    await t.test('report mode: an officer of another org passes the victim\'s officer routes, as the spec says; nothing of it lands in another org', async (t) => {
      t.ok(letThrough.length > 0, `${letThrough.length} calls of officer routes by an officer or identity-provider caller of another org, and of REPORTED_ROUTES`);
      const attackerRows = await world.orgFingerprint(attacker.org.id);
      const tallied = await quad.auth.wouldDeny.flush().then(() => quad.auth.wouldDeny.lastDay());
      const all = ['email', 'student_id', 'discord_id', 'token', 'secret', 'webhook_url', 'private_text'] as Category[];
      const earlier = new Map([...problems].map(([key, list]) => [key, list.length]));
      for (const { route, attempt, c } of letThrough) {
        // What an officer of the org may see and change, which report mode lets them: only a 5xx is a problem here.
        await attack(route.key, `${outsider(c)} (report mode)`, attempt, as(attacker, c), { refuse: false, shows: all });
      }
      t.same([...problems].flatMap(([key, list]) => list.slice(earlier.get(key) ?? 0)), [], 'no call failed');
      t.same(await world.orgFingerprint(attacker.org.id), attackerRows, 'no row of the attacker\'s org was written by calls on the victim\'s routes');
      await quad.auth.wouldDeny.flush();
      t.ok(await quad.auth.wouldDeny.lastDay() > tallied, 'each was counted as one report mode let through');
    });
  }
  await t.test('every OPEN entry is still needed (some outsider got an answer from it)', async (t) => {
    for (const entry of Object.keys(OPEN)) t.ok(opened.has(entry), entry);
  });
  t.comment(`${calls} calls on ${routes.length} routes and ${quad.registry.tools.size} tools`);
}
