// The registry refuses a bad manifest at boot with a message naming the plugin and the field.
import t from 'tap';
import { defineModule, defineOrgEntity, defineService, p, provide, Type, type ModuleManifest } from '@quad/core';
import pg from 'pg';
import { ADMIN_URL, createTestDatabase, startTestApp } from '@quad/core/testing';
import { Registry } from '../core/src/modules/registry.js';
import { CORE_MODULES } from '../core/src/modules/load.js';
import { VERSION } from '../core/src/version.js';

const base: ModuleManifest = { name: 'demo', title: 'Demo', description: 'A demo module', category: 'Tests' };
const handler = async () => {};
const fixture = (name: string) => new URL(`./plugin-api/fixtures/${name}/`, import.meta.url);
const entity = (tableName: string) => defineOrgEntity({ name: `E_${tableName}`, tableName, properties: { id: p.integer().primary() } });
interface Counter { next(): number; reset(): void }
const counter = defineService<Counter>({ id: 'demo.counter', methods: ['next', 'reset'] });
const counterImpl = { next: () => 1, reset: () => {} };
const build = (...manifests: ModuleManifest[]) => new Registry([...CORE_MODULES, ...manifests.map(defineModule)]);

t.test('a valid manifest is indexed', async (t) => {
  const registry = build({
    ...base,
    scopes: [{ name: 'demo:read', description: 'read' }],
    limits: [{ key: 'demo.things', kind: 'count', default: 10, description: 'things', count: async () => 0 }],
    tools: [{ name: 'demo.look', description: 'look', scope: 'demo:read', input: Type.Object({}), handler }],
    jobs: [{ name: 'demo.sweep', cron: '*/5 * * * *', handler }],
  });
  t.ok(registry.scopes.get('demo:read'));
  t.equal(registry.limits.get('demo.things')?.module, 'demo');
  t.equal(registry.tools.get('demo.look')?.module, 'demo');
  t.equal(registry.jobs.get('demo.sweep')?.module, 'demo');
  t.equal(registry.modules[0].name, 'core', 'core modules come first');
});

const refusals: [string, ModuleManifest[], RegExp][] = [
  ['bad module name', [{ ...base, name: 'Demo!' }], /^Plugin "Demo!": name: /],
  ['missing title', [{ ...base, title: '' }], /^Plugin "demo": title: /],
  ['unknown field', [{ ...base, colour: 'red' } as ModuleManifest], /^Plugin "demo": colour: /],
  ['duplicate module', [base, base], /^Plugin "demo": name: another loaded module has the same name/],
  ['scope outside namespace', [{ ...base, scopes: [{ name: 'store:read', description: 'x' }] }], /^Plugin "demo": scopes\[0\]\.name: "store:read" is outside the module's namespace "demo:"/],
  ['bad scope form', [{ ...base, scopes: [{ name: 'demo.read', description: 'x' }] }], /^Plugin "demo": scopes\/0\/name|^Plugin "demo": scopes\.0\.name: /],
  ['limit outside namespace', [{ ...base, limits: [{ key: 'mcp.calls', kind: 'count', default: 1, description: 'x' }] }], /^Plugin "demo": limits\[0\]\.key: "mcp\.calls" is outside/],
  ['rate without window', [{ ...base, limits: [{ key: 'demo.calls', kind: 'rate', default: 1, description: 'x' }] }], /^Plugin "demo": limits\[0\]\.window: a rate limit needs a window/],
  ['negative limit default', [{ ...base, limits: [{ key: 'demo.calls', kind: 'count', default: -1, description: 'x', count: async () => 0 }] }], /^Plugin "demo": limits\.0\.default: /],
  ['count limit without a count', [{ ...base, limits: [{ key: 'demo.things', kind: 'count', default: 1, description: 'x' }] }], /^Plugin "demo": limits\[0\]\.count: a count limit needs a count function/],
  ['need of an undeclared integration', [{ ...base, needs: [{ key: 'forge', label: 'GitHub', kind: 'integration' }] }], /^Plugin "demo": needs\[0\]\.key: needs integration "forge", which no loaded module declares/],
  ['scope of an undeclared integration', [{ ...base, scopes: [{ name: 'demo:read', description: 'x', integration: 'forge' }] }], /^Plugin "demo": scopes\[0\]\.integration: /],
  ['duplicate integration', [
    { ...base, integrations: [{ key: 'forge', title: 'G', description: 'd', secrets: [{ name: 'forge.token', label: 'T' }] }] },
    { ...base, name: 'other', integrations: [{ key: 'forge', title: 'G', description: 'd', secrets: [{ name: 'forge.key', label: 'T' }] }] },
  ], /^Plugin "other": integrations\[0\]\.key: "forge" is declared twice/],
  ['module secret outside namespace', [{ ...base, secrets: [{ name: 'feeds.webhook', label: 'W' }] }], /^Plugin "demo": secrets\[0\]\.name: "feeds\.webhook" is outside/],
  ['tool outside namespace', [{ ...base, scopes: [{ name: 'demo:read', description: 'x' }], tools: [{ name: 'other.look', description: 'x', scope: 'demo:read', input: Type.Object({}), handler }] }], /^Plugin "demo": tools\[0\]\.name: "other\.look" is outside/],
  ['tool with undeclared scope', [{ ...base, tools: [{ name: 'demo.look', description: 'x', scope: 'demo:nothing', input: Type.Object({}), handler }] }], /^Plugin "demo": tools\[0\]\.scope: scope "demo:nothing" is not declared/],
  ['tool without handler', [{ ...base, scopes: [{ name: 'demo:read', description: 'x' }], tools: [{ name: 'demo.look', description: 'x', scope: 'demo:read', input: Type.Object({}) } as never] }], /^Plugin "demo": tools\.0\.handler: /],
  ['job outside namespace', [{ ...base, jobs: [{ name: 'limits.prune', handler }] }], /^Plugin "demo": jobs\[0\]\.name: "limits\.prune" is outside/],
  ['duplicate job', [{ ...base, jobs: [{ name: 'demo.a', handler }, { name: 'demo.a', handler }] }], /^Plugin "demo": jobs\[1\]\.name: "demo\.a" is declared twice/],
  ['bad cron', [{ ...base, jobs: [{ name: 'demo.a', cron: 'every minute', handler }] }], /^Plugin "demo": jobs\[0\]\.cron: /],
  ['bad once', [{ ...base, jobs: [{ name: 'demo.a', once: 'always' as never, handler }] }], /^Plugin "demo": jobs\.0\.once: /],
  ['needs a module that is not loaded', [{ ...base, needs: [{ key: 'points', label: 'Points', kind: 'module' }] }], /^Plugin "demo": needs\[0\]\.key: needs module "points", which is not loaded/],
  ['circular needs', [
    { ...base, needs: [{ key: 'other', label: 'Other', kind: 'module' }] },
    { ...base, name: 'other', needs: [{ key: 'demo', label: 'Demo', kind: 'module' }] },
  ], /^Plugin "(demo|other)": needs: circular need: /],
  ['migrations not a folder', [{ ...base, migrations: 42 as never }], /^Plugin "demo": migrations: must be a folder URL/],
  ['bad event name', [{ ...base, events: ['Order Created'] }], /^Plugin "demo": events\.0: /],
  // Always-on is for the core's own modules.
  ['a plugin that declares core: true', [{ ...base, core: true }], /^Plugin "demo": core: only modules shipped in @quad\/core may be core \(always on\)/],
  ['a core version range the core does not satisfy', [{ ...base, coreVersion: '^99.0.0' }], new RegExp(`^Plugin "demo": coreVersion: needs @quad/core \\^99\\.0\\.0; this is @quad/core ${VERSION.replace(/\./g, '\\.')}$`)],
  ['a core version that is not a range', [{ ...base, coreVersion: 'latest and greatest' }], /^Plugin "demo": coreVersion: "latest and greatest" is not a semver range/],
  // Services between modules.
  ['a service outside the namespace', [{ ...base, provides: [provide(defineService<Counter>({ id: 'points.counter', methods: ['next'] }), counterImpl)] }], /^Plugin "demo": provides\[0\]\.ref\.id: "points\.counter" is outside the module's namespace "demo\."/],
  ['a service provided twice', [
    { ...base, provides: [provide(counter, counterImpl)] },
    { ...base, name: 'other', provides: [{ ref: counter, impl: counterImpl }] },
  ], /^Plugin "other": provides\[0\]\.ref\.id: /],
  ['a service nobody provides', [{ ...base, consumes: [defineService<Counter>({ id: 'ledger.counter', methods: ['next'] })] }], /^Plugin "demo": consumes\[0\]: needs service "ledger\.counter", which no loaded module provides/],
  ['a consumer that calls a method the provider does not offer', [
    { ...base, provides: [provide(defineService<Counter>({ id: 'demo.counter', methods: ['next'] }), counterImpl)] },
    { ...base, name: 'other', consumes: [counter] },
  ], /^Plugin "other": consumes\[0\]: service "demo\.counter" of module "demo" has no method "reset"/],
  ['a provision with neither impl nor factory', [{ ...base, provides: [{ ref: counter }] }], /^Plugin "demo": provides\[0\]: give exactly one of impl and factory/],
  ['modules that consume each other\'s services', [
    { ...base, provides: [provide(counter, counterImpl)], consumes: [defineService<Counter>({ id: 'other.counter', methods: [] })] },
    { ...base, name: 'other', provides: [provide(defineService<Counter>({ id: 'other.counter', methods: [] }), counterImpl)], consumes: [counter] },
  ], /^Plugin "(demo|other)": needs: circular need: /],
  // Tables: each declared with its tenancy; a name outside the namespace is a claim. Event kinds and settings.
  ['an entity table not declared in tables', [{ ...base, entities: [entity('demo_rows')] }], /^Plugin "demo": entities\[0\]: table "demo_rows" is not declared in tables: declare its tenancy there \('org', 'shared' or 'global'/],
  ['a migration table not declared in tables', [{ ...base, migrations: fixture('outside-migrations') }], /^Plugin "demo": migrations\/0001_things\.sql: table "loose_things" is not declared in tables/],
  ['a tenancy that is none of org, shared and global', [{ ...base, tables: { demo_rows: 'private' as never } }], /^Plugin "demo": tables\.demo_rows: |^Plugin "demo": tables\/demo_rows: /],
  ['a table name that is not a table name', [{ ...base, tables: { 'Demo Rows': 'org' } }], /^Plugin "demo": tables/],
  ['public rows of a global table', [{ ...base, tables: { demo_rows: { tenancy: 'global' as never, public: 'public' } } }], /^Plugin "demo": tables\.demo_rows|^Plugin "demo": tables\/demo_rows/],
  ['a public column that is not a column name', [{ ...base, tables: { demo_rows: { tenancy: 'org', public: 'Public; drop' } } }], /^Plugin "demo": tables\.demo_rows|^Plugin "demo": tables\/demo_rows/],
  ['an event kind outside the namespace', [{ ...base, events: ['order.created'] }], /^Plugin "demo": events\[0\]: event kind "order\.created" is outside the module's namespace "demo\.\*"/],
  ['a setting outside the namespace', [{ ...base, settings: Type.Object({ GREETING: Type.String({ default: 'hi' }) }) }], /^Plugin "demo": settings\.GREETING: setting "GREETING" is outside the module's namespace "DEMO_\*"/],
  ['a declared core table', [{ ...base, tables: { users: 'global' }, entities: [entity('users')] }], /^Plugin "demo": tables\.users: table "users" is owned by the core already/],
  ['a claim of a core setting', [{ ...base, claims: { settings: ['PORT'] } }], /^Plugin "demo": claims\.settings\[0\]: setting "PORT" is owned by the core already/],
  ['a table declared in another module\'s namespace', [{ ...base }, { ...base, name: 'other', tables: { demo_rows: 'org' } }], /^Plugin "other": tables\.demo_rows: "demo_rows" is in the namespace of module "demo"/],
  ['a claimed setting that the module of its namespace declares', [
    { ...base, settings: Type.Object({ DEMO_URL: Type.String({ default: 'x' }) }) }, { ...base, name: 'other', claims: { settings: ['DEMO_URL'] } },
  ], /^Plugin "other": claims\.settings\[0\]: "DEMO_URL" is in the namespace of module "demo"/],
  ['one name claimed by two modules', [
    { ...base, claims: { events: ['order.created'] } }, { ...base, name: 'other', claims: { events: ['order.created'] } },
  ], /^Plugin "other": claims\.events\[0\]: event kind "order\.created" is owned by module "demo" already/],
  ['a table another module declares and creates', [
    { ...base, tables: { products: 'org' }, entities: [entity('products')] }, { ...base, name: 'other', tables: { products: 'org' } },
  ], /^Plugin "other": tables\.products: table "products" is owned by module "demo" already/],
  // Route folders.
  ['routes that are neither a plugin nor a folder URL', [{ ...base, routes: './routes' as never }], /^Plugin "demo": routes: must be a Fastify plugin or a folder URL/],
  ['a routes folder that does not exist', [{ ...base, routes: fixture('no-such-folder') }], /^Plugin "demo": routes: folder .*no-such-folder.* does not exist/],
  ['a routes folder with an index file', [{ ...base, routes: fixture('routes-with-index') }], /^Plugin "demo": routes: index\.[jt]s: a routes folder has no index file/],
  ['a routes folder without route files', [{ ...base, routes: fixture('routes-empty') }], /^Plugin "demo": routes: folder .* has no route files/],
];

for (const [name, manifests, message] of refusals) {
  t.test(`refused: ${name}`, async (t) => {
    t.throws(() => build(...manifests), { name: 'ManifestError', message });
  });
}

t.test('a route without an auth policy refuses boot, naming the plugin and the route', async (t) => {
  const noPolicy = defineModule({ ...base, routes: async (app) => { app.get('/api/demo/:org/open', async () => ({})); } });
  await t.rejects(startTestApp(t, { plugins: [noPolicy] }), {
    name: 'ManifestError',
    message: 'Plugin "demo": routes: GET /api/demo/:org/open: declares no auth policy (set config.auth)',
  });
});

t.test('an unknown policy or an undeclared machine scope refuses boot', async (t) => {
  const unknown = defineModule({ ...base, routes: async (app) => { app.get('/x', { config: { auth: 'everyone' as never } }, async () => ({})); } });
  await t.rejects(startTestApp(t, { plugins: [unknown] }), { message: /^Plugin "demo": routes: GET \/x: unknown auth policy "everyone"/ });
  const scope = defineModule({ ...base, routes: async (app) => { app.get('/y', { config: { auth: 'machine:demo:write' } }, async () => ({})); } });
  await t.rejects(startTestApp(t, { plugins: [scope] }), { message: /^Plugin "demo": routes: GET \/y: auth policy "machine:demo:write" names a scope no loaded module declares/ });
});

t.test('claimed and namespaced names are accepted', async (t) => {
  const registry = build({
    ...base, coreVersion: `^${VERSION}`, entities: [entity('demo_rows'), entity('demo'), entity('products')],
    tables: { demo_rows: { tenancy: 'org', public: 'public' }, demo: 'global', products: 'shared' },
    events: ['demo.done', 'order.created'], settings: Type.Object({ DEMO_GREETING: Type.String({ default: 'hi' }), GREETING: Type.String({ default: 'hi' }) }),
    claims: { events: ['order.created'], settings: ['GREETING'] },
  });
  t.ok(registry.get('demo'));
  const beside = build(base, { ...base, name: 'other', settings: Type.Object({ DEMO_API_URL: Type.String({ default: 'x' }) }), claims: { settings: ['DEMO_API_URL'] } });
  t.ok(beside.get('other'), 'a setting claimed in the namespace of a module that does not declare it');
});

t.test('the core\'s own modules are the only core modules', async (t) => {
  const registry = build(base);
  t.same(registry.modules.filter((m) => m.core).map((m) => m.name).sort(), CORE_MODULES.map((m) => m.name).sort());
  const copy = defineModule({ ...CORE_MODULES[0]!, name: 'corelike' });
  t.throws(() => new Registry([...CORE_MODULES, copy]), { message: /^Plugin "corelike": core: only modules shipped in @quad\/core/ }, 'a copy of a core manifest is not shipped in the core');
});

t.test('a provider comes before the modules that consume its services', async (t) => {
  const consumer = { ...base, name: 'aaa', consumes: [counter] };
  const registry = build(consumer, { ...base, provides: [provide(counter, counterImpl)] });
  const names = registry.modules.map((m) => m.name);
  t.ok(names.indexOf('demo') < names.indexOf('aaa'));
  t.equal(registry.services.get('demo.counter')?.module, 'demo');
});

t.test('an implementation without a method its ref lists refuses boot, naming the provider, and closes what it opened', async (t) => {
  const broken = defineModule({ ...base, provides: [provide(counter, (() => ({ next: () => 1 })) as never)] });
  const db = await createTestDatabase([...CORE_MODULES, broken]);
  t.teardown(() => db.drop());
  await t.rejects(startTestApp(t, { plugins: [broken], databaseUrl: db.url }), {
    name: 'ManifestError', message: 'Plugin "demo": provides[0]: the implementation of "demo.counter" has no method "reset"',
  });
  // The check runs after the ORM opened its pool: a start that fails there must not leave connections (and the
  // pool's timers, which kept the process alive) behind.
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  t.teardown(() => admin.end());
  const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where datname = $1', [db.name]);
  t.equal(rows[0].n, 0, 'no connection of the failed start is left');
});

t.test('a route file that exports no route plugin refuses boot, naming the file', async (t) => {
  const mod = defineModule({ ...base, routes: fixture('routes-bad-file') });
  await t.rejects(startTestApp(t, { plugins: [mod] }), {
    name: 'ManifestError', message: /^Plugin "demo": routes: helpers\.[jt]s: a route file must default-export a route plugin/,
  });
});

t.test('a plugin path that does not load is named', async (t) => {
  await t.rejects(startTestApp(t, { plugins: ['./plugins/does-not-exist'] }), { name: 'ManifestError', message: /^Plugin "\.\/plugins\/does-not-exist": package: cannot be imported/ });
});
