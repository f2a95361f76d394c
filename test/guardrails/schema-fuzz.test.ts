// Guardrail: schema fuzzing. Boots the core with every first-party plugin, takes every route from the OpenAPI
// document (a route added later is covered with no edit here), and sends each one inputs generated from its own
// schema (fast-check), valid-ish and hostile: NUL bytes, lone surrogates, long strings, path tricks, and numbers
// such as 1e309, 2^63 or -1. Each route is called with every credential that gets past its auth policy, so its
// validation is reached, and with none. Every integer field of every route and of every tool (over /api/tools/call)
// is also sent 2^31, 2^53 and -2^31 - 1. Asserts: never a 5xx other than 503, every 4xx and 503 a JSON `{ error }`,
// no row written by a refused request (nor any error-log row), and a 400 for an integer outside its field's declared
// range. Deterministic (fixed seed per route and tool); FUZZ_RUNS and FUZZ_SEED widen a run.
// tap: a process of its own (the longest file of the suite: alone, it runs beside the others, not after a group).
import t from 'tap';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify';
import { startFakeIdp } from '../fakes/idp/index.js';
import { bearer, cookieFrom, signInOfficer, startSignInWorld } from '../support/sign-in.js';
import {
  encodePart, hostileJson, hostileText, INTEGER_EDGES, integerSlots, RawJson, setAt, slotsOf, toJson, valueArb, type IntegerSlot, type JsonSchema,
} from '../support/schema-arbitraries.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const PLUGINS = ['./plugins/points', './plugins/store', './plugins/event_webhook', './plugins/knowledge', './plugins/agents', './plugins/pods', './plugins/feeds', './plugins/submodules', './plugins/hosting', './plugins/uptime', './plugins/calendar', './plugins/leetcode', './examples/hello-plugin'];
const MODULES = { points: true, store: true, event_webhook: true, knowledge: true, agents: true, podhost: true, feeds: true, submodules: true, hostprov: true, uptime: true, calendar: true, leetcode: true, hello: true };
const ADMIN = '999000444';
const CLOSED = 'http://127.0.0.1:9'; // nothing listens: outbound calls fail at once


interface Operation { method: string; path: string; key: string; params: JsonSchema[]; query: JsonSchema[]; body?: JsonSchema }
interface Credential { name: string; org: () => string; headers: () => Record<string, string> }
type Mutation = { part: 'params' | 'query'; name: string; value: string } | { part: 'body'; path: (string | number)[]; value: unknown };
interface Input { credential: number; params: Record<string, unknown>; query: Record<string, unknown>; body?: unknown; mutation?: Mutation }

/** Every operation of the OpenAPI document, with the schema of each parameter and of the JSON body. */
function operations(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params: JsonSchema[] = op.parameters ?? [];
      out.push({
        method: method.toUpperCase(), path, key: `${method.toUpperCase()} ${path}`,
        params: params.filter((p) => p.in === 'path'), query: params.filter((p) => p.in === 'query'),
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return out;
}

/** A stable 31-bit hash, so each route keeps its own inputs when routes are added. */
const hash = (text: string) => [...text].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, 7) & 0x7fffffff;

function inputArb(op: Operation, credentials: number[]): fc.Arbitrary<Input> {
  const params = fc.record(Object.fromEntries(op.params.filter((p) => p.name !== 'org').map((p) => [p.name, valueArb(p.schema)])));
  const queryModel: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(op.query.map((p) => [p.name, valueArb(p.schema)]));
  const requiredKeys: string[] = op.query.filter((p) => p.required && p.schema?.default === undefined).map((p) => p.name);
  const query = fc.record(queryModel, { requiredKeys });
  const body = op.body ? valueArb(op.body) : fc.constant(undefined);
  const valid = fc.record({ credential: fc.constantFrom(...credentials), params, query, body });
  return valid.chain((input): fc.Arbitrary<Input> => {
    const targets: fc.Arbitrary<Mutation>[] = [
      ...op.params.map((p) => hostileText().map((value): Mutation => ({ part: 'params', name: p.name, value }))),
      ...[...op.query.map((p) => p.name), 'fuzz_extra'].map((name) => hostileText().map((value): Mutation => ({ part: 'query', name, value }))),
    ];
    if (op.body) {
      targets.push(fc.constantFrom(...slotsOf(input.body)).chain((path) => hostileJson().map((value): Mutation => ({ part: 'body', path, value }))));
    }
    // One in four requests is valid-ish (it reaches handlers and writes rows); the rest carry one hostile value.
    return fc.oneof({ weight: 1, arbitrary: fc.constant(input) }, { weight: 3, arbitrary: fc.oneof(...targets).map((mutation) => ({ ...input, mutation })) });
  });
}

// The defects of issue 11 (part 2), tried on every parameter and body field of every route, besides the random runs.
const SWEEP_TEXT = ['\u0000', 'a\u0000b', '\ud800', '1e309', '99999999999999999999', '2147483648', '-1'];
const SWEEP_JSON = ['\u0000', '\udc00', new RawJson('1e309'), new RawJson('99999999999999999999'), new RawJson('-1')];
const SWEEP_SLOTS = 12;

/** One valid-ish input with, in turn, each sweep value in each parameter and (up to SWEEP_SLOTS) body slot. */
function sweep(op: Operation, credential: number, seed: number): Input[] {
  const [base] = fc.sample(inputArb(op, [credential]).filter((i) => !i.mutation), { seed, numRuns: 1 });
  const out: Input[] = [];
  for (const p of op.params) for (const value of SWEEP_TEXT) out.push({ ...base, mutation: { part: 'params', name: p.name, value } });
  for (const p of op.query) for (const value of SWEEP_TEXT) out.push({ ...base, mutation: { part: 'query', name: p.name, value } });
  if (op.body) {
    for (const path of slotsOf(base.body).slice(0, SWEEP_SLOTS)) for (const value of SWEEP_JSON) out.push({ ...base, mutation: { part: 'body', path, value } });
  }
  return out;
}

/** One request of the integer sweep: an edge value in one integer field, and whether it is outside the field's range. */
interface IntegerProbe { input: Input; field: string; value: number; outside: boolean }

/**
 * The path parameters routes constrain by a pattern (`:id(^\\d+$)`), by operation key and name: a value the pattern
 * does not match is routed to another route (`/orders/:email`), whose answer says nothing of this one's validation.
 */
function paramPatterns(routes: readonly RouteOptions[]): Map<string, RegExp> {
  const patterns = new Map<string, RegExp>();
  for (const route of routes) {
    const found: [string, RegExp][] = [];
    const path = route.url.split('/').map((segment) => {
      if (!segment.startsWith(':')) return segment === '*' ? '{*}' : segment;
      const open = segment.indexOf('(');
      if (open < 0) return `{${segment.slice(1)}}`;
      found.push([segment.slice(1, open), new RegExp(segment.slice(open + 1, segment.lastIndexOf(')')))]);
      return `{${segment.slice(1, open)}}`;
    }).join('/');
    for (const method of ([] as string[]).concat(route.method)) for (const [name, re] of found) patterns.set(`${method} ${path} ${name}`, re);
  }
  return patterns;
}

const outside = (slot: IntegerSlot, value: number) => value < slot.min || value > slot.max;
const fieldName = (part: string, path: (string | number)[]) => [part, ...path].join('.');

/** Each of INTEGER_EDGES in each integer parameter and body field of the route, on one valid-ish input. */
function integerSweep(op: Operation, credential: number, seed: number): IntegerProbe[] {
  const [base] = fc.sample(inputArb(op, [credential]).filter((i) => !i.mutation), { seed, numRuns: 1 });
  const probes: IntegerProbe[] = [];
  for (const [part, list] of [['params', op.params], ['query', op.query]] as const) {
    for (const p of list) {
      for (const slot of integerSlots(p.schema).filter((x) => x.path.every((step) => step === 0))) {
        for (const value of INTEGER_EDGES) {
          probes.push({ input: { ...base, mutation: { part, name: p.name, value: String(value) } }, field: `${part}.${p.name}`, value, outside: outside(slot, value) });
        }
      }
    }
  }
  for (const slot of integerSlots(op.body)) {
    for (const value of INTEGER_EDGES) {
      probes.push({ input: { ...base, mutation: { part: 'body', path: slot.path, value } }, field: fieldName('body', slot.path), value, outside: outside(slot, value) });
    }
  }
  return probes;
}

function request(op: Operation, input: Input, credential: Credential): InjectOptions {
  const params: Record<string, unknown> = { ...input.params, org: credential.org() };
  const query: Record<string, unknown> = { ...input.query };
  let body = input.body;
  const m = input.mutation;
  if (m?.part === 'params') params[m.name] = m.value;
  else if (m?.part === 'query') query[m.name] = m.value;
  else if (m?.part === 'body') body = setAt(body, m.path, m.value);
  // `{*}`: a wildcard route's rest of the path, fuzzed like a parameter.
  const path = op.path.replace(/\{(\w+|\*)\}/g, (_, name) => encodePart(String(params[name] ?? 'x')));
  const search = Object.entries(query).filter(([, v]) => v !== undefined)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((item) => `${encodePart(k)}=${encodePart(typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item))}`))
    .join('&');
  const headers = credential.headers();
  return {
    method: op.method as InjectOptions['method'], url: search ? `${path}?${search}` : path,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body !== undefined && { payload: toJson(body) }),
  };
}

/** What went wrong with an answer, or null. */
function problemOf(res: LightMyRequestResponse): string | null {
  if (res.statusCode >= 500 && res.statusCode !== 503) return `answered ${res.statusCode}`;
  if (res.statusCode < 400) return null;
  let body: unknown;
  try {
    body = res.json();
  } catch {
    return `answered ${res.statusCode} with a body that is not JSON`;
  }
  return typeof (body as { error?: unknown })?.error === 'string' ? null : `answered ${res.statusCode} without a string "error"`;
}

t.test('every route survives inputs generated from its schema', async (t) => {
  const idp = await startFakeIdp();
  t.teardown(() => idp.close());
  const world = await startSignInWorld(t, {
    plugins: PLUGINS,
    role: 'api', // no job worker: the only writes are the requests'
    orgModules: MODULES,
    config: {
      SYS_ADMIN: [ADMIN], ACCESS_ENFORCE: true, SECRETS_KEY: [Buffer.alloc(32, 9).toString('base64')], POINTS_GATEWAY: false,
      IDP_API_URL: idp.url, IDP_SECRET_KEY: idp.secretKey, IDP_AUTHORIZED_PARTIES: [idp.defaultAzp],
      GITHUB_API_URL: CLOSED, GITHUB_MCP_URL: `${CLOSED}/mcp`, DISCORD_WEBHOOK_URL_BASE: `${CLOSED}/api/webhooks/`, HOSTPROV_API_URL: CLOSED, HOSTPROV_PROXY_URL: `${CLOSED}/{pod_id}/{port}`, LEETCODE_API_URL: CLOSED, ACCOUNTS_BASE_URL: 'http://quad.test',
    },
  });
  const { quad, discord, org } = world;
  const api = quad.api;
  const sql = async (query: string) => quad.orm.em.fork().getConnection().execute(query);
  const admin = discord.addUser({ id: ADMIN, username: 'root' });
  const idpUser = idp.addUser({ emails: ['buyer@example.org'] }).id;
  // The superadmin works on a decoy org, so a valid-ish DELETE of an org never takes the world with it.
  const decoy = () => quad.createOrg({ prefix: 'decoy', modules: MODULES });
  await decoy();

  async function memberSession(): Promise<string> {
    const start = await api.inject('/api/accounts/chat/login');
    discord.signInAs(world.member.id);
    const back = new URL((await fetch(start.headers.location as string, { redirect: 'manual' })).headers.get('location')!);
    return cookieFrom(await api.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: cookieFrom(start) } }));
  }
  async function machineToken(officer: string): Promise<string> {
    const scopes = [...quad.registry.scopes.keys()];
    const res = await api.inject({ method: 'POST', url: '/api/organizations/acm/tokens', headers: bearer(officer), payload: { name: 'fuzz', kind: 'agent', scopes } });
    if (res.statusCode !== 201) throw new Error(`machine token: ${res.statusCode} ${res.body}`);
    return res.json().token;
  }
  const secrets = {
    officer: (await signInOfficer(world, world.officer.id)).access_token,
    admin: (await signInOfficer(world, admin.id)).access_token,
    machine: '', member: await memberSession(), idp: await idp.issueToken(idpUser, { expiresIn: 3600 }),
  };
  secrets.machine = await machineToken(secrets.officer);
  const acm = () => org.prefix;
  const credentials: Credential[] = [
    { name: 'none', org: acm, headers: () => ({}) },
    { name: 'officer', org: acm, headers: () => bearer(secrets.officer) },
    { name: 'machine', org: acm, headers: () => bearer(secrets.machine) },
    { name: 'member', org: acm, headers: () => ({ cookie: secrets.member }) },
    { name: 'idp', org: acm, headers: () => bearer(secrets.idp) },
    { name: 'superadmin', org: () => 'decoy', headers: () => bearer(secrets.admin) },
  ];

  /** A valid-ish request may revoke a credential or remove the decoy: put the world back as it was. */
  async function repair() {
    if ((await api.inject({ url: '/api/auth/appTokens', headers: bearer(secrets.officer) })).statusCode !== 200) {
      secrets.officer = (await signInOfficer(world, world.officer.id)).access_token;
    }
    if ((await api.inject({ url: '/api/auth/appTokens', headers: bearer(secrets.admin) })).statusCode !== 200) {
      secrets.admin = (await signInOfficer(world, admin.id)).access_token;
    }
    if ((await api.inject({ url: '/api/auth/machine/whoami', headers: bearer(secrets.machine) })).statusCode !== 200) {
      secrets.machine = await machineToken(secrets.officer);
    }
    if (!(await sql("select 1 from organizations where prefix = 'decoy'")).length) await decoy();
  }

  // Every row written, by table: a trigger on each table notes it in fuzz_writes (in the writer's transaction, so a
  // rolled-back write is no write). Left out: bookkeeping a refused request may rightly touch (a machine token's last
  // use, rate counters) and the audit rows of refused tool calls (tool calls are audited by design).
  const tables = (await sql(`select table_schema || '.' || table_name as name, table_name as short,
      string_agg(quote_ident(column_name), ', ') filter (where not (table_name = 'machine_tokens' and column_name = 'last_used_at')) as cols
    from information_schema.columns join information_schema.tables using (table_schema, table_name)
    where table_type = 'BASE TABLE' and ((table_schema = 'public' and table_name not in ('usage_counters', 'mikro_orm_migrations'))
       or (table_schema = 'graphile_worker' and table_name = '_private_jobs'))
    group by table_schema, table_name`)) as { name: string; short: string; cols: string }[];
  await sql(`create unlogged table fuzz_writes (tbl text not null, op text not null);
    grant insert on fuzz_writes to public;
    create function fuzz_note_write() returns trigger language plpgsql as $$
      begin insert into fuzz_writes values (TG_TABLE_NAME, TG_OP); return null; end $$;
    ${tables.filter((t) => t.short !== 'fuzz_writes' && t.short !== 'audit_log').map((t) => `create trigger fuzz_write after insert or delete or update of ${t.cols}
      on ${t.name} for each row execute function fuzz_note_write();`).join('\n')}
    create trigger fuzz_write after update or delete on audit_log for each row execute function fuzz_note_write();
    create trigger fuzz_write_insert after insert on audit_log for each row when (new.action <> 'tools.call') execute function fuzz_note_write();`);
  /** The tables written since the last call, e.g. `users (INSERT)`. */
  const written = async () => [...new Set((await sql('delete from fuzz_writes returning tbl, op')).map((r) => `${r.tbl} (${r.op})`))].join(', ');

  const ops = operations(api.swagger());
  const patterns = paramPatterns(api.registeredRoutes);
  t.ok(ops.length > 50, `${ops.length} routes from the OpenAPI document`);
  const failures: { key: string; line: string }[] = [];
  let requests = 0;

  /** Send one request; `expect400` names an integer outside its field's range, which must be refused with a 400. */
  async function send(op: Operation, options: InjectOptions, credential: Credential, input?: Input, expect400?: string): Promise<LightMyRequestResponse> {
    const res = await api.inject(options);
    requests++;
    const rows = await written();
    const problem = problemOf(res) ?? (res.statusCode >= 400 && rows ? `answered ${res.statusCode} but wrote rows: ${rows}` : null)
      ?? (expect400 && res.statusCode !== 400 ? `answered ${res.statusCode} to ${expect400}, not 400` : null);
    if (problem) {
      failures.push({ key: op.key, line: `${op.key} as ${credential.name} ${problem}: ${res.body.slice(0, 300)}\n    ← ${options.method} ${String(options.url).slice(0, 300)} ${String(options.payload ?? '').slice(0, 300)}${input?.mutation ? '' : ' (valid-ish)'}` });
    }
    if (res.statusCode < 300 && op.method !== 'GET') {
      await repair();
      await written();
    }
    return res;
  }

  for (const op of ops) {
    // Which credentials get past the route's auth policy? Probe with a request that carries only the org.
    const probe: Input = { credential: 0, params: {}, query: {} };
    const passing: number[] = [];
    for (const [i, credential] of credentials.entries()) {
      const res = await send(op, request(op, probe, credential), credential);
      if (res.statusCode !== 401 && res.statusCode !== 403) passing.push(i);
    }
    const callers = [...new Set([0, ...passing])];
    const seed = SEED ^ hash(op.key);
    // The sweep goes with the last credential that passes (the most specific one; `none` on public routes).
    const inputs = [...sweep(op, callers[callers.length - 1], seed), ...fc.sample(inputArb(op, callers), { seed, numRuns: RUNS })];
    for (const input of inputs) {
      const credential = credentials[input.credential];
      await send(op, request(op, input, credential), credential, input);
    }
    // Integers past int4 and 2^53 in every integer field: a 400 where the field's declared range ends before them
    // (when a credential gets past the route's auth policy, so validation is reached), never a 5xx.
    const last = callers[callers.length - 1];
    for (const probe of integerSweep(op, last, seed)) {
      const credential = credentials[last];
      const m = probe.input.mutation!;
      const routedAway = m.part === 'params' && patterns.get(`${op.key} ${m.name}`)?.test(m.value) === false;
      const expect400 = probe.outside && passing.length && !routedAway ? `${probe.value} in ${probe.field}` : undefined;
      await send(op, request(op, probe.input, credential), credential, probe.input, expect400);
    }
  }

  // Every tool over /api/tools/call (MCP calls go through the same tool service) with the same integer edges: a 400
  // where the input schema's range ends before them, never a 5xx. With confirm, so a value in range reaches the handler.
  const tools = (await api.inject({ url: '/api/tools', headers: bearer(secrets.machine) })).json().tools as { name: string; inputSchema: JsonSchema }[];
  const callOp: Operation = { method: 'POST', path: '/api/tools/call', key: 'POST /api/tools/call (tools)', params: [], query: [] };
  const machine = credentials.find((c) => c.name === 'machine')!;
  let toolFields = 0;
  for (const tool of tools) {
    const [base] = fc.sample(valueArb(tool.inputSchema), { seed: SEED ^ hash(tool.name), numRuns: 1 });
    for (const slot of integerSlots(tool.inputSchema)) {
      toolFields++;
      for (const value of INTEGER_EDGES) {
        const args = setAt(base ?? {}, slot.path, value) as Record<string, unknown>;
        const field = fieldName(tool.name, slot.path);
        const options: InjectOptions = { method: 'POST', url: '/api/tools/call', headers: { ...machine.headers(), 'content-type': 'application/json' }, payload: toJson({ name: tool.name, arguments: args, confirm: true }) };
        await send({ ...callOp, key: `${callOp.key} ${tool.name}` }, options, machine, undefined, outside(slot, value) ? `${value} in ${field}` : undefined);
      }
    }
  }
  t.ok(toolFields > 10, `${toolFields} integer fields of ${tools.length} tools`);
  t.same(await sql('select origin, message from error_log'), [], 'no request wrote an error-log row');

  t.comment(`${requests} requests to ${ops.length} routes`);
  for (const key of [...ops.map((op) => op.key), ...tools.map((tool) => `${callOp.key} ${tool.name}`)]) {
    const lines = failures.filter((f) => f.key === key).map((f) => f.line);
    t.same(lines.slice(0, 5), [], `${key}: no 5xx, JSON errors, no rows written by refusals, integers outside their range 400${lines.length > 5 ? ` (${lines.length} failures)` : ''}`);
  }
});
