// The world of the cross-org matrix: one Quad with every configured plugin and the example plugin, fakes of every
// outside service, a "victim" org with every module on and real rows of every kind (made through the API), an
// "attacker" org with a credential of each kind, the victim's private values, and snapshots of the victim's rows.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TeardownHost, type TestApp } from '@quad/core/testing';
import type { OrganizationEntity } from '@quad/core';
import { startFakeDiscord, type FakeDiscord, type FakeUser } from '../fakes/discord/index.js';
import { startFakeIdp, type FakeIdp } from '../fakes/idp/index.js';
import { startFakeGitHub } from '../fakes/github/index.js';
import { startFakeEmbeddings } from '../fakes/embeddings.js';
import { startFakeHostprov } from '../fakes/hostprov/index.js';
import { servePod } from '../fakes/pod-ssh/index.js';
import { startFakeCampus } from '../fakes/campus-sites.js';
import { startFakeSearch } from '../fakes/search.js';
import { startFakeLeetCode } from '../fakes/leetcode.js';
import { allowOutside } from '../fakes/outside.js';
import { bearer, cookieFrom, discordSettings, signInOfficer } from '../support/sign-in.js';

/** A member's SSH public key (made by ssh-keygen), for a certificate of the victim's pod. */
const MEMBER_SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIARHF+GhfThOaBglCb0OTav4BjsVLpxPcZwdoDKV+/1r guardrails';

/** The plugins an operator gets by default, plus the example a third party copies. */
export const PLUGINS: string[] = [
  ...(JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8')).PLUGINS as string[]),
  './examples/hello-plugin',
];

/** Marks every free text of the victim that only its own people may read. */
export const MARKER = 'VICTIM-PRIVATE';
const PRIVATE_REPO = 'victim-org/private-repo';
const SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

export const CREDENTIALS = ['officer', 'member', 'idp', 'machine', 'none'] as const;
export type CredentialName = (typeof CREDENTIALS)[number];

export type Category = 'email' | 'student_id' | 'discord_id' | 'token' | 'secret' | 'webhook_url' | 'private_text';
export interface PrivateValue { category: Category; value: string; where: string }

export interface Party {
  org: OrganizationEntity;
  officer: FakeUser;
  /** A member of the org's Discord server without the officer role. */
  member: FakeUser;
  /** The storefront (identity-provider) member's email. */
  shopperEmail: string;
  officerToken: string;
  memberCookie: string;
  idpToken: string;
  /** A machine token of the org holding every declared scope. */
  machineToken: string;
}

export interface Request { method: string; url: string; headers?: Record<string, string>; payload?: unknown }

/** Rows of the victim: table -> rows (JSON objects), every table with an organization_id plus the users it references. */
export type Snapshot = Record<string, Record<string, unknown>[]>;

export interface VictimRefs {
  /** users.id of the storefront member (email and student id). */
  userId: number;
  chatUserId: string;
  email: string;
  eventName: string;
  secretName: string;
  /** The last segment of the victim's calendar feed URL (`<token>.ics`): the token is its only credential. */
  calendarFeedFile: string;
}

export interface CrossOrgWorld {
  quad: TestApp;
  victim: Party & { refs: VictimRefs; extraPrivate: PrivateValue[] };
  attacker: Party;
  /** A SYS_ADMIN officer (for the victim-side control calls of superadmin routes). */
  adminToken: string;
  call(req: Request): Promise<LightMyRequestResponse>;
  headers(party: Party, credential: CredentialName): Record<string, string>;
  /** Re-mint the attacker's officer or machine token when a call revoked it; names what was renewed. */
  keepAttackerSignedIn(): Promise<CredentialName[]>;
  snapshot(): Promise<Snapshot>;
  /** A hash per table of the rows a snapshot holds: cheap enough to take after every route. */
  fingerprint(): Promise<Record<string, string>>;
  /** A hash per org table of one org's rows (the attacker's, say). */
  orgFingerprint(orgId: number): Promise<Record<string, string>>;
}

async function expectStatus(res: LightMyRequestResponse, status: number, what: string) {
  if (res.statusCode !== status) throw new Error(`world setup: ${what} answered ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** `accessEnforce`: ACCESS_ENFORCE of the app (default true; false is the spec's report mode). */
export async function startCrossOrgWorld(t: TeardownHost, options: { accessEnforce?: boolean } = {}): Promise<CrossOrgWorld> {
  const discord = await startFakeDiscord();
  t.teardown(() => discord.close());
  const idp = await startFakeIdp();
  t.teardown(() => idp.close());
  const github = await startFakeGitHub();
  t.teardown(() => github.close());
  // Every org embeds (the deployment's default, and the victim's own service set below), so routes that embed answer.
  const embeddings = await startFakeEmbeddings(t);
  // The pod provider: any org's key works, so the victim's pods live on its own account there.
  const hostprov = await startFakeHostprov();
  t.teardown(() => hostprov.close());
  // A submodule's sites and the search service of its web query: live query probes reach fakes, not the internet.
  const campus = await startFakeCampus(t);
  const search = await startFakeSearch(t);
  // LeetCode knows the victim member's username (the link below); the monitor below checks a fake, never a real site.
  const leetcode = await startFakeLeetCode(t);
  leetcode.addUser('victim_coder');
  allowOutside(t);
  const admin = discord.addUser({ username: 'root' });
  const quad = await startTestApp(t, {
    plugins: PLUGINS,
    // No job worker: nothing changes the victim's rows behind the matrix's back.
    role: 'api',
    config: {
      ...discordSettings(discord),
      ACCESS_ENFORCE: options.accessEnforce ?? true,
      SYS_ADMIN: [admin.id],
      IDP_API_URL: idp.url, IDP_SECRET_KEY: idp.secretKey, IDP_AUTHORIZED_PARTIES: [idp.defaultAzp],
      GITHUB_API_URL: github.url,
      // The victim's pod is made with the deployment's image (nobody's image is the default).
      PODHOST_POD_IMAGE: 'example/podhost:1',
      // The victim connects GitHub: its remote tools' server is the fake's (which answers no MCP), never the real one.
      GITHUB_MCP_URL: `${github.url}/mcp`,
      SECRETS_KEY: [SECRETS_KEY],
      DISCORD_WEBHOOK_URL_BASE: `${discord.url}/api/webhooks/`,
      POINTS_GATEWAY: false,
      EMBEDDINGS_URL: embeddings.url,
      HOSTPROV_API_URL: hostprov.url,
      ACCOUNTS_BASE_URL: 'http://quad.test',
      SUBMODULES_BASE_URLS: [`campus.*=${campus.url}`],
      SEARCH_URL: search.url,
      LEETCODE_API_URL: leetcode.url,
      // The matrix checks who may read what, not load shedding (test/http covers under_pressure): its own heavy
      // snapshots lag this process's event loop, which must not turn /health/ready into a 503 mid-run.
      READY_MAX_EVENT_LOOP_DELAY_MS: 0,
      HOSTPROV_PROXY_URL: `${hostprov.url}/proxy/{pod_id}/{port}`,
    },
  });
  const db = new pg.Client({ connectionString: quad.databaseUrl });
  await db.connect();
  t.teardown(() => db.end());
  const world = { quad, discord };
  const call = (req: Request) => quad.api.inject({
    method: req.method as 'GET', url: req.url, headers: req.headers ?? {},
    ...(req.payload !== undefined && { payload: req.payload as object }),
  });
  const allScopes = [...quad.registry.scopes.keys()];
  const allModules = Object.fromEntries(quad.registry.modules.filter((m) => !m.core).map((m) => [m.name, true]));

  async function sessionOf(user: FakeUser): Promise<string> {
    const start = await quad.api.inject('/api/accounts/chat/login');
    discord.signInAs(user.id);
    const back = new URL((await fetch(start.headers.location as string, { redirect: 'manual' })).headers.get('location')!);
    const callback = await quad.api.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: cookieFrom(start) } });
    await expectStatus(callback, 200, 'member sign-in');
    return cookieFrom(callback);
  }

  async function machineToken(org: OrganizationEntity, officerToken: string, name: string): Promise<string> {
    const res = await call({ method: 'POST', url: `/api/organizations/${org.prefix}/tokens`, headers: bearer(officerToken), payload: { name, kind: 'agent', scopes: allScopes } });
    return (await expectStatus(res, 201, `token for ${org.prefix}`)).token;
  }

  async function party(prefix: string, names: { officer: string; member: string; token: string }, shopperEmail: string): Promise<Party> {
    const guild = discord.addGuild({ name: `${prefix} server` });
    const role = discord.addRole(guild.id, { name: 'Officers' });
    const officer = discord.addUser({ username: names.officer });
    const member = discord.addUser({ username: names.member });
    discord.addMember(guild.id, officer.id, [role.id]);
    discord.addMember(guild.id, member.id, []);
    const org = await quad.createOrg({ prefix, discordGuildId: guild.id, officerRoleId: role.id, modules: allModules });
    const officerToken = (await signInOfficer(world, officer.id)).access_token;
    const shopper = idp.addUser({ emails: [shopperEmail] });
    return {
      org, officer, member, shopperEmail, officerToken,
      memberCookie: await sessionOf(member),
      idpToken: await idp.issueToken(shopper.id, { expiresIn: 3600 }),
      machineToken: await machineToken(org, officerToken, names.token),
    };
  }

  // The attacker's org first, with rows of its own: the victim's ids are then not the attacker's ids (nor 1).
  const attacker = await party('attacker', { officer: 'mallory', member: 'mike', token: 'attacker bot' }, 'shopper@attacker.example');
  await expectStatus(await call({ method: 'POST', url: '/api/points/attacker/awards', headers: bearer(attacker.officerToken), payload: { email: attacker.shopperEmail, amount: 50 } }), 201, 'attacker award');
  await expectStatus(await call({ method: 'POST', url: '/api/storefront/attacker/products', headers: bearer(attacker.officerToken), payload: { name: 'Pen', price: 1, stock: 5 } }), 201, 'attacker product');
  const victimParty = await party('victim', { officer: 'vera', member: 'victor', token: `${MARKER} bot` }, 'shopper@victim.example');
  const adminToken = (await signInOfficer(world, admin.id)).access_token;
  const victim = { ...victimParty, ...(await fillVictim(victimParty)) };

  /** Real rows of every kind in the victim org, made the way its people would make them. */
  async function fillVictim(v: Party) {
    const o = `/${v.org.prefix}`;
    const officer = bearer(v.officerToken);
    const as = (headers: Record<string, string>, method: string, url: string, payload?: unknown) => call({ method, url, headers, payload });
    const eventName = 'Kickoff Night';
    const studentId = 'S-VICTIM-0042';
    await expectStatus(await as(officer, 'POST', `/api/points${o}/awards`, { chat_user_id: v.member.id, amount: 300, event: eventName, reason: `${MARKER} welcome` }), 201, 'award');
    await expectStatus(await as(officer, 'POST', `/api/points${o}/checkins`, {
      event: 'Workshop', points: 400, reason: `${MARKER} workshop`, csv: `email,student_id\n${v.shopperEmail},${studentId}\n`,
    }), 201, 'check-ins');
    const mug = await expectStatus(await as(officer, 'POST', `/api/storefront${o}/products`, { name: 'Mug', price: 10, stock: 50, category: 'Merch' }), 201, 'product');
    await expectStatus(await as(officer, 'POST', `/api/storefront${o}/products`, { name: 'Hoodie', price: 20, stock: 10, category: 'Merch' }), 201, 'product');
    const items = [{ product_id: mug.id, quantity: 1, price: 10 }];
    const memberOrder = await expectStatus(await as({ cookie: v.memberCookie }, 'POST', `/api/storefront${o}/members/orders`, { items, total: 10 }), 201, 'member order');
    await expectStatus(await as(bearer(v.idpToken), 'POST', `/api/storefront${o}/checkout`, { items, total: 10 }), 201, 'storefront checkout');
    await expectStatus(await as(officer, 'PUT', `/api/storefront${o}/orders/${memberOrder.order.id}`, { status: 'processing', message: `${MARKER} note to the member` }), 200, 'order update');

    const hook = discord.addWebhook();
    await expectStatus(await as(officer, 'POST', `/api/dashboard${o}/webhooks`, { name: `${MARKER} alerts`, destination: hook.url, events: ['job.failed'] }), 201, 'webhook');
    // A knowledge source, before the secrets: the embeddings integration's secrets below are not a working service.
    await expectStatus(await as(bearer(v.machineToken), 'PUT', '/api/knowledge/sources/probe', {
      title: `${MARKER} handbook`, chunks: [{ ordinal: 0, content: `${MARKER} knowledge passage` }],
    }), 201, 'knowledge source');
    // An agent's memory of the victim's member, under the ids the probes use (the uuid format's probe value).
    const probeUuid = '00000000-0000-4000-8000-000000000000';
    const agents = `/api/agents/members/${v.member.id}`;
    await expectStatus(await as(bearer(v.machineToken), 'PUT', `${agents}/conversations/${probeUuid}`, { channel_id: '1', visibility: 'private' }), 201, 'agent conversation');
    await expectStatus(await as(bearer(v.machineToken), 'POST', `${agents}/conversations/${probeUuid}/messages`, {
      messages: [{ role: 'user', content: `${MARKER} said to the agent` }],
    }), 201, 'agent messages');
    await expectStatus(await as(bearer(v.machineToken), 'POST', `${agents}/conversations/${probeUuid}/summary`, { content: `${MARKER} summary`, covers: 1 }), 201, 'agent summary');
    await expectStatus(await as(bearer(v.machineToken), 'PUT', `${agents}/pending/${probeUuid}`, { action: `${MARKER} action`, payload_hash: 'probe' }), 201, 'pending action');
    await expectStatus(await as(bearer(v.machineToken), 'POST', `${agents}/memories`, { kind: 'semantic', content: `${MARKER} remembered` }), 201, 'memory');
    await expectStatus(await as(bearer(v.machineToken), 'POST', `${agents}/memories`, { kind: 'profile', content: `${MARKER} sensitive`, sensitivity: 'sensitive' }), 201, 'sensitive memory');
    await expectStatus(await as(bearer(v.machineToken), 'POST', `${agents}/profile/facts`, {
      facts: [{ subject: { kind: 'person', label: 'probe' }, relation: 'knows', object: { kind: 'person', label: `${MARKER} friend` } }],
    }), 201, 'profile facts');
    await expectStatus(await as(bearer(v.machineToken), 'PUT', '/api/knowledge/crawls/probe', {
      url: `https://victim.example/${MARKER}-page`, title: `${MARKER} crawled page`, enabled: false,
    }), 201, 'knowledge crawl');
    const secrets: PrivateValue[] = [];
    for (const declared of quad.registry.secrets.values()) {
      // A perKey declaration (a feed's webhook, alert_webhook_<key>) is set under one key: the victim's feed below.
      const name = declared.perKey ? `${declared.name}probe` : declared.name;
      const value = `${MARKER}-secret-${name}-0123456789`;
      await expectStatus(await as(officer, 'PUT', `/api/dashboard${o}/secrets/${name}`, { value }), 200, `secret ${name}`);
      secrets.push({ category: 'secret', value, where: `secret ${name}` });
    }
    // A pod of the victim on its own provider account (the key is the marker value set above), served by a real sshd
    // that trusts the victim's keys (its files and sessions answer), with a certificate of its member and a session.
    const pod = await expectStatus(await as(officer, 'POST', `/api/compute${o}/pods`, { gpu_type_id: 'probe-gpu', name: `${MARKER} pod`, is_public: true, env: { TOKEN: `${MARKER}-pod-env` } }), 201, 'pod');
    const podSsh = await servePod(hostprov, pod.pod_id);
    t.teardown(() => podSsh.close());
    // The pod's host private key (in its environment at the provider only): a line of its base64 body.
    const hostKeyLine = hostprov.pods.find((p) => p.id === pod.pod_id)!.env.PODHOST_SSH_HOST_KEY.split('\n')[1];
    await expectStatus(await as({ cookie: v.memberCookie }, 'POST', `/api/compute${o}/me/pods/${pod.pod_id}/connect`, { public_key: MEMBER_SSH_KEY }), 200, 'pod certificate');
    await expectStatus(await as(officer, 'POST', `/api/compute${o}/pods/${pod.pod_id}/sessions`, {
      title: `${MARKER} session`, start_at: new Date(Date.now() + 86_400_000).toISOString(), stop_at: new Date(Date.now() + 90_000_000).toISOString(),
    }), 201, 'pod session');
    // A feed (its webhook replaces the marker value of alert_webhook_probe) and a submodule subscription.
    const feedHook = discord.addWebhook();
    await expectStatus(await as(officer, 'PUT', `/api/feeds${o}/feeds/probe`, {
      kind: 'repo_jobs', webhook_url: feedHook.url, config: { repo: 'victim-org/jobs', label: `${MARKER} jobs` },
    }), 201, 'feed');
    await expectStatus(await as(officer, 'PUT', `/api/dashboard${o}/submodules/campus/subscription`), 201, 'submodule subscription');
    // An app (its deploy stays queued: no worker), an uptime monitor, a calendar event with its feed URL, LeetCode
    // settings and the member's link.
    await expectStatus(await as(officer, 'POST', `/api/dashboard${o}/apps`, {
      name: 'probe', image: 'ghcr.io/victim/site', cpu: { flavor: 'cpu3c', vcpus: 2 }, ports: [{ port: 8080, protocol: 'http' }],
      env: { NOTE: `${MARKER}-app-env` }, health: { port: 8080, path: '/healthz' },
    }), 201, 'hosting app');
    const deploy = await expectStatus(await as(officer, 'POST', `/api/dashboard${o}/apps/probe/deploys`, { tag: 'v1' }), 202, 'hosting deploy');
    // The deploy job, run here (no worker), makes the app's pod on the victim's provider account.
    await quad.runJob('hostprov.deploy', { deploy_id: deploy.id }, v.org.id);
    await expectStatus(await as(officer, 'POST', `/api/uptime${o}/monitors`, { name: `${MARKER} monitor`, url: `${search.url}/healthz` }), 201, 'uptime monitor');
    await expectStatus(await as(officer, 'POST', `/api/calendar${o}/events`, {
      title: `${MARKER} meeting`, description: `${MARKER} agenda`, start_at: '2030-01-07T18:00:00-05:00', end_at: '2030-01-07T19:00:00-05:00',
      time_zone: 'America/New_York', recurrence: 'FREQ=WEEKLY;COUNT=4', public: false,
    }), 201, 'calendar event');
    const calendarFeedFile = (await expectStatus(await as(officer, 'POST', `/api/calendar${o}/feed`), 201, 'calendar feed')).path.split('/').pop() as string;
    await expectStatus(await as(officer, 'PUT', `/api/leetcode${o}/settings`, { channel_id: '123456789012345678', enabled: true }), 200, 'leetcode settings');
    await expectStatus(await as(officer, 'PUT', `/api/leetcode${o}/links/${v.member.id}`, { username: 'victim_coder' }), 201, 'leetcode link');
    // The victim's own embeddings service: a working one (the marker values above are not URLs).
    await expectStatus(await as(officer, 'PUT', `/api/dashboard${o}/secrets/embeddings.url`, { value: embeddings.url }), 200, 'embeddings url');
    await expectStatus(await as(officer, 'PUT', `/api/dashboard${o}/branding`, { website_url: 'https://victim.example' }), 200, 'branding');
    await expectStatus(await as(officer, 'PUT', `/api/dashboard${o}/ci/repos`, { repos: [PRIVATE_REPO] }), 200, 'ci repos');
    await expectStatus(await as(bearer(adminToken), 'PUT', `/api/superadmin/limits${o}`, { 'hello.greetings_per_day': 500 }), 200, 'limit override');
    const appToken = await expectStatus(await as(officer, 'GET', '/api/auth/appToken'), 200, 'app token');

    // The example plugin: a greeting (audit row and event) and a tally (a job run, queued: no worker here).
    const machine = bearer(v.machineToken);
    await expectStatus(await as(machine, 'POST', `/api/hello${o}/greetings`, { name: 'Guest' }), 201, 'greeting');
    await expectStatus(await as(machine, 'POST', `/api/hello${o}/tally`), 202, 'tally');

    // Notifications of each kind: an event, a problem and an error (with its error.unhandled event).
    const em = quad.orm.em.fork();
    await quad.services.emit(em, { orgId: v.org.id, kind: 'job.failed', title: `${MARKER} nightly export failed`, message: `${MARKER} details` });
    await quad.services.raiseProblem(em, { orgId: v.org.id, key: 'probe.cause:1', title: `${MARKER} problem`, message: `${MARKER} why` });
    await quad.services.logError({ orgId: v.org.id, source: 'request', origin: 'GET /api/probe', error: new Error(`${MARKER} failure`), logLine: `${MARKER} failure` });

    const [shopper] = (await db.query('select id from users where email = $1', [v.shopperEmail])).rows;
    const extraPrivate: PrivateValue[] = [
      ...secrets,
      { category: 'private_text', value: MARKER, where: 'a private text (notification, error, order note, reason, webhook or token name)' },
      { category: 'private_text', value: PRIVATE_REPO, where: 'the CI repo list' },
      { category: 'secret', value: hostKeyLine, where: 'the pod\'s host private key' },
      { category: 'webhook_url', value: hook.url, where: 'webhook destination' },
      { category: 'webhook_url', value: hook.token, where: 'webhook destination token' },
      { category: 'webhook_url', value: feedHook.url, where: 'the feed\'s webhook URL' },
      { category: 'webhook_url', value: feedHook.token, where: 'the feed\'s webhook token' },
      { category: 'discord_id', value: v.officer.id, where: 'the officer\'s Discord id' },
      { category: 'token', value: v.officerToken, where: 'the officer\'s access token' },
      { category: 'token', value: appToken.token, where: 'the officer\'s app token' },
      { category: 'token', value: v.machineToken, where: 'the machine token' },
      { category: 'token', value: calendarFeedFile.replace(/\.ics$/, ''), where: 'the calendar feed URL\'s token' },
      { category: 'token', value: v.idpToken, where: 'the storefront member\'s identity token' },
    ];
    const refs: VictimRefs = { userId: shopper.id, chatUserId: v.member.id, email: v.shopperEmail, eventName, secretName: [...quad.registry.secrets.keys()][0] ?? 'probe.secret', calendarFeedFile };
    return { refs, extraPrivate };
  }

  // Tables of org-owned rows, and tables keyed by a person's Discord id (their tokens and codes).
  const columns = (await db.query(`select table_name, column_name from information_schema.columns where table_schema = 'public'`)).rows as { table_name: string; column_name: string }[];
  const withColumn = (c: string) => [...new Set(columns.filter((r) => r.column_name === c).map((r) => r.table_name))].sort();
  const orgTables = withColumn('organization_id');
  const personTables = withColumn('chat_user_id').filter((tbl) => !orgTables.includes(tbl) && tbl !== 'users');

  const chatIds = () => [victim.officer.id, victim.member.id];
  let userIds: number[] = [];

  async function snapshot(): Promise<Snapshot> {
    const rows = async (sql: string, params: unknown[]) => (await db.query(sql, params)).rows.map((r) => r.row as Record<string, unknown>)
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    const out: Snapshot = { organizations: await rows('select to_jsonb(x) as row from organizations x where id = $1', [victim.org.id]) };
    for (const table of orgTables) out[table] = await rows(`select to_jsonb(x) as row from "${table}" x where organization_id = $1`, [victim.org.id]);
    const referenced = new Set<number>();
    for (const list of Object.values(out)) for (const row of list) if (typeof row.user_id === 'number') referenced.add(row.user_id);
    userIds = [...referenced];
    out.users = await rows('select to_jsonb(x) as row from users x where id = any($1::int[]) or chat_user_id = any($2::text[])', [userIds, chatIds()]);
    for (const table of personTables) out[table] = await rows(`select to_jsonb(x) as row from "${table}" x where chat_user_id = any($1::text[])`, [chatIds()]);
    return out;
  }

  /** One hash per table of the same rows as a snapshot (users: those of the last snapshot), in one query. */
  async function fingerprint(): Promise<Record<string, string>> {
    const hash = (table: string, where: string) =>
      `select '${table}' as t, md5(coalesce(string_agg(to_jsonb(x)::text, ',' order by to_jsonb(x)::text), '')) as h from "${table}" x where ${where}`;
    const sql = [
      hash('organizations', 'id = $1'),
      ...orgTables.map((table) => hash(table, 'organization_id = $1')),
      hash('users', 'id = any($2::int[]) or chat_user_id = any($3::text[])'),
      ...personTables.map((table) => hash(table, 'chat_user_id = any($3::text[])')),
    ].join(' union all ');
    const { rows } = await db.query(sql, [victim.org.id, userIds, chatIds()]);
    return Object.fromEntries(rows.map((r) => [r.t, r.h]));
  }

  async function orgFingerprint(orgId: number): Promise<Record<string, string>> {
    const sql = orgTables.map((table) =>
      `select '${table}' as t, md5(coalesce(string_agg(to_jsonb(x)::text, ',' order by to_jsonb(x)::text), '')) as h from "${table}" x where organization_id = $1`).join(' union all ');
    const { rows } = await db.query(sql, [orgId]);
    return Object.fromEntries(rows.map((r) => [r.t, r.h]));
  }

  const headers = (p: Party, credential: CredentialName): Record<string, string> => {
    switch (credential) {
      case 'officer': return bearer(p.officerToken);
      case 'member': return { cookie: p.memberCookie };
      case 'idp': return bearer(p.idpToken);
      case 'machine': return bearer(p.machineToken);
      case 'none': return {};
    }
  };

  let renewals = 0;
  async function keepAttackerSignedIn(): Promise<CredentialName[]> {
    const renewed: CredentialName[] = [];
    if ((await call({ method: 'GET', url: '/api/auth/appTokens', headers: headers(attacker, 'officer') })).statusCode !== 200) {
      attacker.officerToken = (await signInOfficer(world, attacker.officer.id)).access_token;
      renewed.push('officer');
    }
    if ((await call({ method: 'GET', url: '/api/auth/machine/whoami', headers: headers(attacker, 'machine') })).statusCode !== 200) {
      attacker.machineToken = await machineToken(attacker.org, attacker.officerToken, `attacker bot ${++renewals}`);
      renewed.push('machine');
    }
    return renewed;
  }

  return { quad, victim, attacker, adminToken, call, headers, keepAttackerSignedIn, snapshot, fingerprint, orgFingerprint };
}

const COLUMN_CATEGORIES: [RegExp, Category][] = [
  [/email/, 'email'],
  [/student/, 'student_id'],
  [/chat_user_id|discord_user|member_discord/, 'discord_id'],
  [/token_hash|token_prefix|^jti$|code_hash/, 'token'],
  [/ciphertext|secret/, 'secret'],
  [/destination|webhook_url/, 'webhook_url'],
];
/** Shorter values could match by chance (a small id inside a timestamp). */
const MIN_PRIVATE_LENGTH = 6;

/** Every private value of the victim: those the world made, and each value of a private-looking column of its rows. */
export function privateValues(snapshot: Snapshot, extra: PrivateValue[]): PrivateValue[] {
  const found = new Map<string, PrivateValue>();
  const add = (v: PrivateValue) => { if (v.value.length >= MIN_PRIVATE_LENGTH && !found.has(v.value)) found.set(v.value, v); };
  extra.forEach(add);
  for (const [table, rows] of Object.entries(snapshot)) {
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        const category = COLUMN_CATEGORIES.find(([re]) => re.test(column))?.[1];
        if (category && typeof value === 'string') add({ category, value, where: `${table}.${column}` });
      }
    }
  }
  return [...found.values()];
}
