// Loading submodule packages and campus kits (no app but the last tests): the shipped content passes the kit's check,
// the campus package brings the kit SUBMODULES_CAMPUS_KIT names (asu by default; the fictional Northfield kit loads
// from its test folder with no code change), a bad package or kit is refused naming it and the field, base URLs are
// overridden per base or for a whole submodule, the legacy CAMPUS_QUERY_MAX_CHARS applies when the new name is
// unset, and a bad package or kit stops the API from booting.
import t from 'tap';
import { ConfigSource } from '@quad/core';
import { CODE_EXT, startTestApp } from '@quad/core/testing';
import { defineSubmodule, submoduleProblems, type QueryDecl } from 'quad-submodule-kit';
import asu from '../campus/kits/asu/index.js';
import careers from 'quad-submodule-careers';
import { loadCatalog } from '../catalog.js';
import { queryMaxChars, SubmodulesSettingsSchema } from '../settings.js';
import { checkParams } from '../queries/params.js';
import { queryUrl } from '../queries/run.js';
import { liveSourceKey, paramsHash } from '../index-result.js';

const DEFAULTS = ['quad-submodule-campus', 'quad-submodule-careers'];
const FIXTURES = './plugins/submodules/test/fixtures';
const NORTHFIELD = `${FIXTURES}/kits/northfield`;
const load = (packages: string[], baseUrls: string[] = [], kit?: string) =>
  loadCatalog({ SUBMODULES_PACKAGES: packages, SUBMODULES_BASE_URLS: baseUrls, ...(kit !== undefined && { SUBMODULES_CAMPUS_KIT: kit }) });

t.test('the shipped content passes the check; campus is the ASU kit by default', async (t) => {
  t.same(submoduleProblems(asu), []);
  t.same(submoduleProblems(careers), []);
  const catalog = await load(DEFAULTS);
  t.same(catalog.list.map((s) => [s.name, s.package, s.kit]), [['campus', 'quad-submodule-campus', 'asu'], ['careers', 'quad-submodule-careers', null]]);
  const campus = catalog.get('campus')!;
  t.equal(campus.pages[0]!.url, 'https://registrar.asu.edu/academic-calendar', 'the default bases: ASU\'s sites');
  t.same(campus.links, { course_management: 'https://canvas.asu.edu/', sign_in: 'https://weblogin.asu.edu/cas/login' });
  t.equal(campus.queries.length, 16);
  t.same(Object.keys(campus.code.transforms ?? {}), ['asu_term', 'arizona_date'], 'the kit\'s code came with it');
  t.equal(campus.siteNames.class_search, 'ASU Class Search');
  t.same((await load(DEFAULTS, [], 'asu')).get('campus')!.kit, 'asu', 'named');
});

t.test('a second kit loads from its folder with no code change', async (t) => {
  const catalog = await load(DEFAULTS, [], NORTHFIELD);
  const campus = catalog.get('campus')!;
  t.same([campus.name, campus.package, campus.kit], ['campus', 'quad-submodule-campus', NORTHFIELD]);
  t.equal(campus.pages[0]!.url, 'https://www.northfield.example/about');
  t.same(campus.queries.map((q) => q.name), ['library_hours', 'events', 'courses', 'dining', 'scholarships', 'news', 'shuttles', 'jobs', 'sports', 'web']);
  const all = await load(DEFAULTS, ['campus.*=http://mirror.test:8080'], `${process.cwd()}/plugins/submodules/test/fixtures/kits/northfield`);
  t.same(Object.values(all.get('campus')!.bases), Array(6).fill('http://mirror.test:8080'), 'an absolute path; its bases overridden like any');
});

t.test('a kit that cannot be used stops the load, naming the setting, the kit and the field', async (t) => {
  await t.rejects(load(DEFAULTS, [], 'mit'), {
    name: 'SubmoduleConfigError',
    message: 'SUBMODULES_CAMPUS_KIT: kit "mit": not a built-in campus kit (built in: asu); name a kit folder by path, e.g. ./kits/mit',
  });
  await t.rejects(load(DEFAULTS, [], './kits/nowhere'), { message: /^SUBMODULES_CAMPUS_KIT: kit "\.\/kits\/nowhere": no kit folder at .*kits\/nowhere \(a folder with index\.js or index\.ts\)$/ });
  await t.rejects(load(DEFAULTS, [], `${FIXTURES}/kits/not-campus`), {
    message: `SUBMODULES_CAMPUS_KIT: kit "${FIXTURES}/kits/not-campus": name: a campus kit declares name "campus" (got "college")`,
  });
  await t.rejects(load(DEFAULTS, [], `${FIXTURES}/kits/bad-parser`), {
    message: `SUBMODULES_CAMPUS_KIT: kit "${FIXTURES}/kits/bad-parser": queries[0].answer.parser: "hours_table" is not one of its parsers (hours_list)`,
  });
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
  t.equal(one.get('campus')!.pages.find((p) => p.key === 'campus/library-facilities')!.url, 'https://lib.example.org/policies/facilities-use', 'trailing slash dropped');
  t.equal(one.get('campus')!.pages[0]!.url, 'https://registrar.asu.edu/academic-calendar', 'other bases keep their default');
  const all = await load(DEFAULTS, ['campus.*=http://mirror.test:8080']);
  t.same(new Set(Object.values(all.get('campus')!.bases)), new Set(['http://mirror.test:8080']));
  t.equal(Object.keys(all.get('campus')!.bases).length, 24);
  await t.rejects(load(DEFAULTS, ['campus.gym=https://gym.example']), { message: /^SUBMODULES_BASE_URLS: campus\.gym: the submodule has no base "gym" \(its bases: www, registrar, tuition, .*, canvas, sso\)$/ });
  await t.rejects(load(DEFAULTS, ['school.site=https://s.example']), { message: /^SUBMODULES_BASE_URLS: school.site: no loaded submodule is named "school"/ });
});

t.test('settings and names', async (t) => {
  t.equal(queryMaxChars({ SUBMODULES_PACKAGES: [], SUBMODULES_BASE_URLS: [], SEARCH_ENGINES: 'x' }), 30_000, 'default');
  const legacy = new ConfigSource({ dir: '/nonexistent', env: { CAMPUS_QUERY_MAX_CHARS: '500' } });
  t.equal(queryMaxChars(legacy.resolve(SubmodulesSettingsSchema)), 500, 'the legacy name');
  t.match(legacy.warnings(), [/^CAMPUS_QUERY_MAX_CHARS \(in the environment\): old name of SUBMODULE_QUERY_MAX_CHARS/]);
  const both = new ConfigSource({ dir: '/nonexistent', env: { CAMPUS_QUERY_MAX_CHARS: '500', SUBMODULE_QUERY_MAX_CHARS: '700' } });
  t.equal(queryMaxChars(both.resolve(SubmodulesSettingsSchema)), 700, 'the new name wins');
  const rooms = asu.queries!.find((q) => q.name === 'study_rooms')!;
  t.same(checkParams(rooms, { library: 'noble' }), { library: 'noble', date: 'today' }, 'defaults fill in, optional ones stay out');
  t.equal(paramsHash({ b: '2', a: '1' }), paramsHash({ a: '1', b: '2' }), 'the hash ignores the order of names');
  t.match(liveSourceKey('campus', 'library_hours', { branch: 'main' }), /^campus-live\/library_hours-[0-9a-f]{12}$/);
});

t.test('a path parameter cannot climb out of the query\'s path', async (t) => {
  const catalog = await load(DEFAULTS);
  const free: QueryDecl = { name: 'page', title: 'P', description: 'p', params: { slug: { description: 's' } }, source: { kind: 'http', base: 'www', path: '/pages/{slug}' }, answer: { kind: 'text' } };
  const url = (slug: string) => queryUrl(catalog.get('campus')!, free as QueryDecl & { source: { kind: 'http' } }, { slug });
  t.equal(url('a b/c').href, 'https://www.asu.edu/pages/a%20b%2Fc', 'values are encoded');
  for (const slug of ['..', '.', '%2e%2E', '.%2e']) t.throws(() => url(slug), { message: 'Parameter "slug" is not a valid value' }, slug);
});

t.test('the kit\'s check: codes, lists, parsers, transforms and headers', async (t) => {
  const base = { name: 'x1', title: 'X', description: 'x', readers: { queries: ['agents'] }, bases: { s: { url: 'https://s.example', description: 's' } } };
  const query = (over: Partial<QueryDecl>): QueryDecl => ({ name: 'q', title: 'Q', description: 'q', params: {}, source: { kind: 'http', base: 's', path: '/' }, answer: { kind: 'text' }, ...over });
  t.same(submoduleProblems({
    ...base,
    queries: [query({
      params: {
        a: { description: 'a', values: ['x'], codes: { x: '1' } },
        b: { description: 'b', codes: { Mon: 'M', mon: 'M2' } },
        c: { description: 'c', join: '+' },
        d: { description: 'd', transform: 'nope' },
        e: { description: 'e', codes: { x: '1' }, default: 'y' },
      },
      source: { kind: 'http', base: 's', path: '/', headers: { Cookie: 'a=1', authorization: 'Bearer null' } },
      answer: { kind: 'parser', parser: 'missing', format: 'json' },
    })],
  }), [
    'queries[0].params.a: values and codes both list the accepted values; keep one',
    'queries[0].params.b.codes: "mon" is listed twice (letter case is ignored)',
    'queries[0].params.c.join: only a many parameter is joined',
    'queries[0].params.d.transform: "nope" is not one of its transforms (none)',
    'queries[0].params.e.default: is not one of x',
    'queries[0].answer.parser: "missing" is not one of its parsers (none)',
    'queries[0].source.headers.Cookie: a submodule may not set this header',
  ]);
  const coded = defineSubmodule({ ...base, queries: [query({ params: { d: { description: 'd', transform: 't' } }, answer: { kind: 'parser', parser: 'p', format: 'text' } })] },
    { parsers: { p: () => 'ok' }, transforms: { t: (v) => v } });
  t.same(submoduleProblems(coded), [], 'names the code holds');
  t.same(submoduleProblems({ ...base, code: { parsers: { p: 'not a function' } } }), ['code: must be { parsers?: { name: function }, transforms?: { name: function } }']);
});

t.test('a bad package or kit stops the API from booting', async (t) => {
  await t.rejects(startTestApp(t, { plugins: ['./plugins/submodules'], config: { SUBMODULES_PACKAGES: [`${FIXTURES}/bad-query${CODE_EXT}`] } }),
    { message: /Submodule package ".*bad-query\.[jt]s": queries\[0\]\.source\.path/ });
  await t.rejects(startTestApp(t, { plugins: ['./plugins/submodules'], config: { SUBMODULES_CAMPUS_KIT: './kits/nowhere' } }),
    { message: /SUBMODULES_CAMPUS_KIT: kit "\.\/kits\/nowhere": no kit folder/ });
  await t.rejects(startTestApp(t, { plugins: ['./plugins/submodules'], config: { SUBMODULES_CAMPUS_KIT: 'Not A Kit' } }),
    { message: /SUBMODULES_CAMPUS_KIT: must name a built-in campus kit \(asu\) or a kit folder by path/ });
});
