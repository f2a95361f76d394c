// The registry refuses a bad manifest at boot with a message naming the plugin and the field.
import t from 'tap';
import { defineModule, Type, type ModuleManifest } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { Registry } from '../core/src/modules/registry.js';
import { CORE_MODULES } from '../core/src/quad.js';

const base: ModuleManifest = { name: 'demo', title: 'Demo', description: 'A demo module', category: 'Tests' };
const handler = async () => {};
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

t.test('a plugin path that does not load is named', async (t) => {
  await t.rejects(startTestApp(t, { plugins: ['./plugins/does-not-exist'] }), { name: 'ManifestError', message: /^Plugin "\.\/plugins\/does-not-exist": package: cannot be imported/ });
});
