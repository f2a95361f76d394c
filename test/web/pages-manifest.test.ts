// A manifest's `pages` is checked at boot like the rest of it: the shape, a folder for the bundle, something to show,
// page paths that are neither the dashboard's own nor another module's, and member pages at addresses the service
// does not serve itself. The shell's own paths and the core's reserved list stay in step.
import t from 'tap';
import { defineModule, type ModuleManifest } from '@quad/core';
import { Registry } from '../../core/src/modules/registry.js';
import { RESERVED_PAGE_PATHS } from '../../core/src/modules/pages.js';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { CORE_PAGES, OLD_PATH_NAMES, SHELL_PATHS, redirectOf } from '../../core/web/src/shell/routes.js';

const bundle = new URL('./web/dist/', import.meta.url);
const page = { path: 'demo', title: 'Demo', component: 'DemoPage' };
const member = { path: 'me', title: 'Yours', component: 'MinePage' };
const base = (pages: ModuleManifest['pages'], name = 'demo'): ModuleManifest => ({ name, title: 'Demo', description: 'A demo', category: 'Tests', pages });
const build = (...manifests: ModuleManifest[]) => new Registry([...CORE_MODULES, ...manifests.map(defineModule)]);

t.test('a module with pages', async (t) => {
  const registry = build(base({ bundle, entry: 'pages/main.mjs', list: [page, { ...page, path: 'demo-two', category: 'Other', icon: 'star' }], overviewCard: 'DemoCard' }));
  t.ok(registry.get('demo')?.pages);
  t.ok(build(base({ bundle: '/srv/demo/web', overviewCard: 'DemoCard' })), 'a path, and only an Overview card');
  const tabs = build(base({ bundle, activityTabs: [{ id: 'demo-runs', label: 'Demo runs', component: 'DemoRuns' }] }));
  t.same(tabs.get('demo')?.pages?.activityTabs, [{ id: 'demo-runs', label: 'Demo runs', component: 'DemoRuns' }], 'only an Activity tab');
  const explore = build(base({ bundle, exploreTabs: [{ id: 'submodules', label: 'Submodules', component: 'SubsTab' }, { id: 'demo-more', label: 'More', component: 'MoreTab' }] }));
  t.same(explore.get('demo')?.pages?.exploreTabs?.map((tab) => tab.id), ['submodules', 'demo-more'], 'only Explore tabs: the Submodules tab in the placeholder\'s place, and one of its own');
  const members = build(base({ bundle, memberPages: [member, { ...member, path: 'my-orders' }] }), base({ bundle, memberPages: [member] }, 'other'));
  t.same(members.get('demo')?.pages?.memberPages?.map((p) => p.path), ['me', 'my-orders'], 'only member pages; two modules may each have a `me`');
});

const refusals: [string, ModuleManifest[], RegExp][] = [
  ['no bundle', [base({ list: [page] } as never)], /^Plugin "demo": pages\.bundle: /],
  ['a bundle that is no folder URL', [base({ bundle: new URL('https://example.com/pages/'), list: [page] })], /^Plugin "demo": pages\.bundle: must be a folder URL/],
  ['nothing to show', [base({ bundle, list: [] })], /^Plugin "demo": pages: declares no page, no overviewCard, no activityTabs, no exploreTabs and no memberPages/],
  ['an Activity tab of the core', [base({ bundle, activityTabs: [{ id: 'errors', label: 'Mine', component: 'Mine' }] })], /^Plugin "demo": pages\.activityTabs\[0\]\.id: "errors" is a tab of Activity already/],
  ['one Activity tab twice', [base({ bundle, activityTabs: [{ id: 'runs', label: 'Runs', component: 'Runs' }] }), base({ bundle, activityTabs: [{ id: 'runs', label: 'Runs', component: 'Runs' }] }, 'other')], /^Plugin "other": pages\.activityTabs\[0\]\.id: "runs" is an Activity tab of module "demo" already/],
  ['an Activity tab id in capitals', [base({ bundle, activityTabs: [{ id: 'Runs', label: 'Runs', component: 'Runs' }] })], /^Plugin "demo": pages\.activityTabs\.0\.id: /],
  ['an Explore tab of the core', [base({ bundle, exploreTabs: [{ id: 'integrations', label: 'Mine', component: 'Mine' }] })], /^Plugin "demo": pages\.exploreTabs\[0\]\.id: "integrations" is a tab of Explore already/],
  ['one Explore tab twice', [base({ bundle, exploreTabs: [{ id: 'submodules', label: 'Submodules', component: 'Subs' }] }), base({ bundle, exploreTabs: [{ id: 'submodules', label: 'Subs', component: 'Subs' }] }, 'other')], /^Plugin "other": pages\.exploreTabs\[0\]\.id: "submodules" is an Explore tab of module "demo" already/],
  ['an Explore tab without a label', [base({ bundle, exploreTabs: [{ id: 'subs', label: '', component: 'Subs' }] })], /^Plugin "demo": pages\.exploreTabs\.0\.label: /],
  ['an entry outside the folder', [base({ bundle, entry: '../index.js', list: [page] })], /^Plugin "demo": pages\.entry: /],
  ['an entry that is no script', [base({ bundle, entry: 'index.html', list: [page] })], /^Plugin "demo": pages\.entry: /],
  ['a path of two segments', [base({ bundle, list: [{ ...page, path: 'demo/x' }] })], /^Plugin "demo": pages\.list\.0\.path: /],
  ['a path in capitals', [base({ bundle, list: [{ ...page, path: 'Demo' }] })], /^Plugin "demo": pages\.list\.0\.path: /],
  ['a component that is no export name', [base({ bundle, list: [{ ...page, component: 'default export' }] })], /^Plugin "demo": pages\.list\.0\.component: /],
  ['an unknown field', [base({ bundle, list: [{ ...page, gate: 'other' } as never] })], /^Plugin "demo": pages\.list\.0\.gate: /],
  ['the shell\'s own path', [base({ bundle, list: [{ ...page, path: 'explore' }] })], /^Plugin "demo": pages\.list\[0\]\.path: "explore" is the dashboard's own path/],
  ['an old path the shell redirects', [base({ bundle, list: [{ ...page, path: 'ci' }] })], /^Plugin "demo": pages\.list\[0\]\.path: "ci" is the dashboard's own path/],
  ['one path twice in a module', [base({ bundle, list: [page, page] })], /^Plugin "demo": pages\.list\[1\]\.path: "demo" is a page of this module already/],
  ['another module\'s path', [base({ bundle, list: [page] }), base({ bundle, list: [page] }, 'other')], /^Plugin "other": pages\.list\[0\]\.path: "demo" is a page of module "demo" already/],
  ['a member page path of two segments', [base({ bundle, memberPages: [{ ...member, path: 'me/orders' }] })], /^Plugin "demo": pages\.memberPages\.0\.path: /],
  ['a member page path in capitals', [base({ bundle, memberPages: [{ ...member, path: 'Me' }] })], /^Plugin "demo": pages\.memberPages\.0\.path: /],
  ['a member page without a component', [base({ bundle, memberPages: [{ path: 'me', title: 'Yours' } as never] })], /^Plugin "demo": pages\.memberPages\.0\.component: /],
  ['one member page path twice', [base({ bundle, memberPages: [member, member] })], /^Plugin "demo": pages\.memberPages\[1\]\.path: "me" is a member page of this module already/],
  ['the core\'s store sign-in page', [base({ bundle, memberPages: [{ ...member, path: 'login' }] }, 'store')], /^Plugin "store": pages\.memberPages\[0\]\.path: \/store\/<org>\/login is the core's own page/],
  ['member pages under the API', [base({ bundle, memberPages: [member] }, 'api')], /^Plugin "api": pages\.memberPages: would open under \/api\//],
];

for (const [name, manifests, message] of refusals) {
  t.test(`refused: ${name}`, async (t) => {
    t.throws(() => build(...manifests), { name: 'ManifestError', message });
  });
}

t.test('the shell\'s paths are the ones the core keeps from modules', async (t) => {
  const shell = [...CORE_PAGES.map((p) => p.path).filter(Boolean), ...SHELL_PATHS, ...OLD_PATH_NAMES];
  t.same([...new Set(shell)].sort(), [...RESERVED_PAGE_PATHS].sort());
});

t.test('old addresses and where they open', async (t) => {
  const at = (pathname: string, search = '', hash = '') => redirectOf({ pathname, search, hash });
  t.equal(at('/ci'), '/activity?tab=ci');
  t.equal(at('/ci/'), '/activity?tab=ci');
  t.equal(at('/hosting', '?tab=pods'), '/pods');
  t.equal(at('/hosting'), null, 'the hosting page itself');
  t.equal(at('/settings', '', '#calendar'), '/calendar');
  t.equal(at('/settings'), null, 'the settings page itself');
  t.equal(at('/settings', '', '#general'), null);
  t.equal(at('/explore'), null);
  t.equal(at('/ci/extra'), null, 'one segment only');
});
