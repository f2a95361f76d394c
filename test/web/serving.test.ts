// The web clients the service serves (core/src/http/web.ts): the dashboard's page under /dashboard/ with the import
// map its CSP allows by hash, hashed assets cached for a year, plugin page bundles of the enabled plugins only,
// the store pages, the modules' member pages (the member shell, told the page in a <meta>), and sign-in coming
// back to the served dashboard when DASHBOARD_URL is unset.
import { createHash } from 'node:crypto';
import t from 'tap';
import { defineModule } from '@quad/core';
import { captureLogs, startTestApp } from '@quad/core/testing';
import { bearer, officerLogin, signInOfficer, startSignInWorld } from '../support/sign-in.js';

/** An enabled plugin that brings no pages. */
const plain = defineModule({ name: 'plain', title: 'Plain', description: 'A module without dashboard pages', category: 'Tests' });

t.test('the served dashboard, store pages and plugin page bundles', async (t) => {
  const world = await startSignInWorld(t, {
    plugins: ['./plugins/points', './examples/hello-plugin', plain], orgModules: { hello: true },
    config: { DASHBOARD_URL: undefined },
  });
  const { quad } = world;
  const get = (url: string) => quad.api.inject({ url });

  await t.test('every path under /dashboard/ is the dashboard\'s page, never cached, its import map allowed by hash', async (t) => {
    for (const url of ['/dashboard', '/dashboard/', '/dashboard/explore', '/dashboard/hello/12', '/dashboard/auth/?code=x']) {
      const res = await get(url);
      t.equal(res.statusCode, 200, url);
      t.match(res.headers['content-type'], /^text\/html/);
      t.equal(res.headers['cache-control'], 'no-cache', `${url}: the newest build's page every time`);
      t.equal(res.headers['x-content-type-options'], 'nosniff');
    }
    const page = await get('/dashboard/');
    const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page.body)?.[1];
    t.ok(map, 'the page has an import map');
    const csp = String(page.headers['content-security-policy']);
    t.match(csp, `script-src 'self' 'sha256-${createHash('sha256').update(map!).digest('base64')}'`, 'the CSP allows exactly that inline script');
    t.match(csp, "frame-ancestors 'none'");
    t.match(csp, 'img-src \'self\' data: https:', 'org logos may come from any https address');
    t.notMatch(csp.split('; ').find((d) => d.startsWith('script-src')), 'unsafe', 'no other inline script');
    const { imports } = JSON.parse(map!) as { imports: Record<string, string> };
    t.same(Object.keys(imports).sort(), ['@quad/web/sdk', '@tanstack/react-query', 'react', 'react-dom', 'react/jsx-runtime']);
    for (const [specifier, url] of Object.entries(imports)) {
      const res = await get(url);
      t.equal(res.statusCode, 200, `${specifier} -> ${url}`);
      t.match(res.headers['content-type'], /javascript/);
      t.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', 'hashed names are cached for a year');
      t.match(res.body, /\bexport\s*\{/, `${specifier} is an ES module with named exports`);
    }
    const react = (await get(imports.react!)).body;
    for (const name of ['useState', 'useEffect', 'createElement', 'Fragment']) t.match(react, new RegExp(`\\bas ${name}\\b`), `react exports ${name}`);
  });

  await t.test('a missing file is a 404 answer, never the dashboard\'s page', async (t) => {
    for (const url of ['/dashboard/assets/nope.js', '/dashboard/plugins/hello/nope.js', '/dashboard/plugins/plain/index.js', '/dashboard/plugins/nope/index.js']) {
      const res = await get(url);
      t.equal(res.statusCode, 404, url);
      t.match(res.headers['content-type'], /^application\/json/, url);
    }
    const escape = await get('/dashboard/plugins/hello/..%2F..%2Fpackage.json');
    t.not(escape.statusCode, 200, 'no way out of the plugin\'s folder');
    t.notMatch(escape.body, /quad-plugin-hello/);
  });

  await t.test('an enabled plugin\'s bundle is served from its folder, revalidated on each use', async (t) => {
    const res = await get('/dashboard/plugins/hello/index.js');
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /javascript/);
    t.equal(res.headers['cache-control'], 'no-cache');
    t.ok(res.headers.etag, 'with an ETag');
    t.match(res.body, /from\s*"react"/, 'React stays a bare import (the import map resolves it)');
    t.match(res.body, /from\s*"@quad\/web\/sdk"/);
    t.notMatch(res.body, /createElement\s*=\s*function|react\.production/, 'no copy of React inside');
    const again = await quad.api.inject({ url: '/dashboard/plugins/hello/index.js', headers: { 'if-none-match': String(res.headers.etag) } });
    t.equal(again.statusCode, 304);
  });

  await t.test('the store pages, for orgs that exist', async (t) => {
    for (const url of ['/store/acm', '/store/acm/login']) {
      const res = await get(url);
      t.equal(res.statusCode, 200, url);
      t.match(res.headers['content-type'], /^text\/html/);
      t.notMatch(res.body, /importmap/, 'the store pages load no plugin');
    }
    const unknown = await get('/store/nope');
    t.equal(unknown.statusCode, 404);
    t.equal(unknown.json().reason, 'unknown_org');
  });

  await t.test('the bare address still opens the API docs, which list none of these pages', async (t) => {
    const root = await get('/');
    t.equal(root.statusCode, 302);
    t.equal(root.headers.location, '/docs');
    const paths = Object.keys((await get('/openapi.json')).json().paths);
    t.same(paths.filter((p) => p.startsWith('/dashboard') || p.startsWith('/store')), []);
  });

  await t.test('without DASHBOARD_URL, sign-in comes back to the dashboard this service serves', async (t) => {
    const login = await officerLogin(world, world.officer.id, 'dashboard');
    t.ok(login.location.startsWith('http://quad.test/dashboard/auth/?code='), login.location);
    const members = await quad.api.inject('/api/accounts/chat/login?next=http%3A%2F%2Fquad.test%2Fstore%2Facm');
    t.equal(members.statusCode, 302, 'a member may be sent back to the served store pages');
  });

  await t.test('the listing tells the dashboard each module\'s pages', async (t) => {
    const { access_token } = await signInOfficer(world, world.officer.id);
    const listing = (await quad.api.inject({ url: '/api/dashboard/acm/modules', headers: bearer(access_token) })).json();
    const hello = listing.modules.find((m: { name: string }) => m.name === 'hello');
    t.same(hello.pages, {
      entry: '/dashboard/plugins/hello/index.js',
      list: [{ path: 'hello', title: 'Greetings', category: 'Examples', icon: 'smile', component: 'GreetingsPage' }],
      overview_card: 'GreetingsCard',
      activity_tabs: [],
      explore_tabs: [],
    });
    t.equal(listing.modules.find((m: { name: string }) => m.name === 'plain').pages, null, 'a module without pages');
    t.ok(listing.included.some((m: { name: string; pages: unknown }) => m.name === 'tokens' && m.pages === null), 'core modules are listed as included');
    const switched = await quad.api.inject({ method: 'PUT', url: '/api/organizations/acm/modules', headers: bearer(access_token), payload: { modules: { points: true } } });
    t.same(switched.json().modules.find((m: { name: string }) => m.name === 'hello').pages, hello.pages, 'the switch answers the same listing');
    t.ok(switched.json().included.length > 0);
  });
});

t.test('a module\'s member page: the member shell with the import map, told which page and org to show', async (t) => {
  const quad = await startTestApp(t, { plugins: ['./plugins/agents'] });
  await quad.createOrg({ prefix: 'acm', name: 'ACM "<Club>" & $\' co', modules: { agents: true } });
  await quad.createOrg({ prefix: 'quiet', modules: { agents: false } });
  const page = await quad.api.inject('/agents/acm/me');
  t.equal(page.statusCode, 200);
  t.match(page.headers['content-type'], /^text\/html/);
  t.equal(page.headers['cache-control'], 'no-cache');
  const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page.body)?.[1];
  t.ok(map, 'the shell has the dashboard\'s import map, so the bundle shares React and the SDK');
  const dashboardMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec((await quad.api.inject('/dashboard/')).body)?.[1];
  t.equal(map, dashboardMap, 'the same one');
  const csp = String(page.headers['content-security-policy']);
  t.match(csp, `script-src 'self' 'sha256-${createHash('sha256').update(map!).digest('base64')}'`, 'the CSP still allows exactly that inline script');
  t.equal([...page.body.matchAll(/<script\b/g)].length, 2, 'the import map and the shell\'s module, nothing inline added');
  const meta = /<meta name="quad-member-page" content="([^"]*)" \/>/.exec(page.body)?.[1];
  t.ok(meta, 'the page to show is named in a <meta>');
  t.notMatch(meta!, /[<>"]/, 'the org\'s name is escaped');
  const told = JSON.parse(meta!.replace(/&#(\d+);/g, (_m, c: string) => String.fromCharCode(Number(c))));
  t.same(told, { entry: '/dashboard/plugins/agents/index.js', component: 'MyAgentDataPage', title: 'Your data with the agents', org: { prefix: 'acm', name: 'ACM "<Club>" & $\' co' } });
  t.equal((await quad.api.inject(told.entry)).statusCode, 200, 'the bundle is served');

  const off = await quad.api.inject('/agents/quiet/me');
  t.same([off.statusCode, off.json().reason], [404, 'module_off'], 'not while the module is off for the org');
  const unknown = await quad.api.inject('/agents/nope/me');
  t.same([unknown.statusCode, unknown.json().reason], [404, 'unknown_org']);
  t.equal((await quad.api.inject('/agents/acm/other')).statusCode, 404, 'only the declared pages');
  const paths = Object.keys((await quad.api.inject('/openapi.json')).json().paths);
  t.same(paths.filter((p) => p.startsWith('/agents')), [], 'hidden from the API document');
});

t.test('a plugin whose pages are not built boots, warns and serves nothing for them', async (t) => {
  const unbuilt = defineModule({
    name: 'unbuilt', title: 'Unbuilt', description: 'Pages not built yet.', category: 'Examples',
    pages: { bundle: new URL('./no-such-folder/', import.meta.url), list: [{ path: 'unbuilt', title: 'Unbuilt', component: 'Page' }] },
  });
  const logs = captureLogs('warn');
  const quad = await startTestApp(t, { plugins: [unbuilt], logger: logs.logger });
  t.ok(logs.messages().some((m) => /^pages of module unbuilt are not served: the bundle folder .*no-such-folder\/ does not exist/.test(m)), 'a warning names the module', { messages: logs.messages() });
  const res = await quad.api.inject('/dashboard/plugins/unbuilt/index.js');
  t.equal(res.statusCode, 404);
});
