// Loading submodule packages (no app but the last test): the shipped content passes the kit's check, a bad package
// is refused naming the package and the field, base URLs are overridden per base or for a whole submodule, the
// legacy CAMPUS_QUERY_MAX_CHARS applies when the new name is unset, and a bad package stops the API from booting.
import t from 'tap';
import { CODE_EXT, startTestApp } from '@quad/core/testing';
import { submoduleProblems, type QueryDecl } from 'quad-submodule-kit';
import campus from 'quad-submodule-campus';
import careers from 'quad-submodule-careers';
import { loadCatalog } from '../catalog.js';
import { queryMaxChars } from '../settings.js';
import { checkParams } from '../queries/params.js';
import { queryUrl } from '../queries/run.js';
import { liveSourceKey, paramsHash } from '../index-result.js';

const DEFAULTS = ['quad-submodule-campus', 'quad-submodule-careers'];
const FIXTURES = './plugins/submodules/test/fixtures';
const load = (packages: string[], baseUrls: string[] = []) => loadCatalog({ SUBMODULES_PACKAGES: packages, SUBMODULES_BASE_URLS: baseUrls });

t.test('the shipped content passes the check', async (t) => {
  t.same(submoduleProblems(campus), []);
  t.same(submoduleProblems(careers), []);
  const catalog = await load(DEFAULTS);
  t.same(catalog.list.map((s) => [s.name, s.package]), [['campus', 'quad-submodule-campus'], ['careers', 'quad-submodule-careers']]);
  t.equal(catalog.get('campus')!.pages[0]!.url, 'https://www.northfield.example/about', 'the default bases');
  t.equal(catalog.get('campus')!.links.sign_in, 'https://login.northfield.example/login');
});

t.test('the kit names each problem\'s field', async (t) => {
  const base = { name: 'x1', title: 'X', description: 'x', readers: {} };
  t.same(submoduleProblems({ ...base, name: 'Bad Name' }), ['name: Expected string to match \'^[a-z][a-z0-9_-]{1,39}$\' (got "Bad Name")']);
  t.same(submoduleProblems({ ...base, pages: [{ key: 'a', url: '{nope}/a', title: 'A', category: 'c', fetch_every_hours: 1 }], readers: { pages: ['knowledge'] } }),
    ['pages[0].url: {nope} is not one of the bases (none)']);
  t.same(submoduleProblems({ ...base, feeds: [{ key: 'f', title: 'F', description: 'f', kind: 'repo_jobs', config: {} }] }),
    ['feeds[0].config.repo: a repo_jobs preset needs repo "<owner>/<name>"', 'readers.feeds: name the modules that read its feeds']);
  const query = (params: QueryDecl['params'], path: string): QueryDecl => ({ name: 'q', title: 'Q', description: 'q', params, source: { kind: 'http', base: 's', path }, answer: { kind: 'text' } });
  t.same(submoduleProblems({
    ...base, readers: { queries: ['agents'] }, bases: { s: { url: 'https://s.example', description: 's' } },
    queries: [query({ a: { description: 'a', optional: true } }, '/{a}'), query({ b: { description: 'b', values: ['x'], default: 'y' } }, '/{b}')],
  }), [
    'queries[0].source.path: {a} is optional without a default, so the path could not be built',
    'queries[1].params.b.default: is not one of x',
    'queries[1]: "q" is listed twice',
  ]);
});

t.test('a bad package is refused, naming the package and the field', async (t) => {
  await t.rejects(load([...DEFAULTS, `${FIXTURES}/bad-query${CODE_EXT}`]),
    { name: 'SubmoduleConfigError', message: `Submodule package "${FIXTURES}/bad-query${CODE_EXT}": queries[0].source.path: {room} is not one of its params (day)` });
  await t.rejects(load(['quad-submodule-nowhere']), { message: /^Submodule package "quad-submodule-nowhere": package: cannot be imported/ });
  await t.rejects(load([`${FIXTURES}/no-default${CODE_EXT}`]), { message: /no-default\.[jt]s": default export: must be defineSubmodule/ });
  await t.rejects(load([...DEFAULTS, `${FIXTURES}/second-campus${CODE_EXT}`]),
    { message: `Submodule package "${FIXTURES}/second-campus${CODE_EXT}": name: "campus" is declared by package "quad-submodule-campus" already` });
  t.same((await load([`${FIXTURES}/second-campus${CODE_EXT}`])).list.map((s) => s.name), ['campus', 'clubs'], 'a package may hold several');
});

t.test('base URLs: per base, for a whole submodule, and refused when unknown', async (t) => {
  const one = await load(DEFAULTS, ['campus.library=https://lib.example.org/']);
  t.equal(one.get('campus')!.pages.find((p) => p.key === 'campus/library-services')!.url, 'https://lib.example.org/services', 'trailing slash dropped');
  t.equal(one.get('campus')!.pages[0]!.url, 'https://www.northfield.example/about', 'other bases keep their default');
  const all = await load(DEFAULTS, ['campus.*=http://mirror.test:8080']);
  t.same(Object.values(all.get('campus')!.bases), Array(6).fill('http://mirror.test:8080'));
  await t.rejects(load(DEFAULTS, ['campus.gym=https://gym.example']), { message: 'SUBMODULES_BASE_URLS: campus.gym: the submodule has no base "gym" (its bases: site, library, transit, athletics, lms, sso)' });
  await t.rejects(load(DEFAULTS, ['school.site=https://s.example']), { message: /^SUBMODULES_BASE_URLS: school.site: no loaded submodule is named "school"/ });
});

t.test('settings and names', async (t) => {
  t.equal(queryMaxChars({ SUBMODULES_PACKAGES: [], SUBMODULES_BASE_URLS: [], SEARCH_ENGINES: 'x' }), 30_000, 'default');
  t.equal(queryMaxChars({ SUBMODULES_PACKAGES: [], SUBMODULES_BASE_URLS: [], SEARCH_ENGINES: 'x', CAMPUS_QUERY_MAX_CHARS: 500 }), 500, 'the legacy name');
  t.equal(queryMaxChars({ SUBMODULES_PACKAGES: [], SUBMODULES_BASE_URLS: [], SEARCH_ENGINES: 'x', CAMPUS_QUERY_MAX_CHARS: 500, SUBMODULE_QUERY_MAX_CHARS: 700 }), 700, 'the new name wins');
  const hours = campus.queries!.find((q) => q.name === 'library_hours')!;
  t.same(checkParams(hours, {}), { branch: 'main' }, 'defaults fill in, optional ones stay out');
  t.equal(paramsHash({ b: '2', a: '1' }), paramsHash({ a: '1', b: '2' }), 'the hash ignores the order of names');
  t.match(liveSourceKey('campus', 'library_hours', { branch: 'main' }), /^campus-live\/library_hours-[0-9a-f]{12}$/);
});

t.test('a path parameter cannot climb out of the query\'s path', async (t) => {
  const catalog = await load(DEFAULTS);
  const free: QueryDecl = { name: 'page', title: 'P', description: 'p', params: { slug: { description: 's' } }, source: { kind: 'http', base: 'site', path: '/pages/{slug}' }, answer: { kind: 'text' } };
  const url = (slug: string) => queryUrl(catalog.get('campus')!, free as QueryDecl & { source: { kind: 'http' } }, { slug });
  t.equal(url('a b/c').href, 'https://www.northfield.example/pages/a%20b%2Fc', 'values are encoded');
  for (const slug of ['..', '.', '%2e%2E', '.%2e']) t.throws(() => url(slug), { message: 'Parameter "slug" is not a valid value' }, slug);
});

t.test('a bad package stops the API from booting', async (t) => {
  await t.rejects(startTestApp(t, { plugins: ['./plugins/submodules'], config: { SUBMODULES_PACKAGES: [`${FIXTURES}/bad-query${CODE_EXT}`] } }),
    { message: /Submodule package ".*bad-query\.[jt]s": queries\[0\]\.source\.path/ });
});
