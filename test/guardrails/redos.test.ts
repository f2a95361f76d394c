// Guardrail: the ReDoS check (eslint.config.js, `npm run lint:regexp`, a step of `npm test`) fails on a super-linear
// pattern. The project's own config lints a snippet holding issue 38's two patterns (the HTML tag pattern that
// backtracked cubically, the Markdown title pattern that backtracked quadratically) and a trailing-slash trim that is
// quadratic as the engine moves along the input; each must be reported, and their linear forms must not. The config
// must cover the folders it claims and skip build output, and `npm test` must run it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ESLint } from 'eslint';
import { REPO_ROOT } from '../support/repo-root.js';

const eslint = new ESLint({ cwd: REPO_ROOT });

/** The ReDoS findings for `code` as if it were a file of plugins/, one `line rule` string each. */
async function findings(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(REPO_ROOT, 'plugins', 'redos-probe.ts') });
  return result!.messages.map((m) => `${m.line} ${m.ruleId ?? m.message}`);
}

t.test("issue 38's two patterns fail the check", async (t) => {
  const found = await findings([
    'export const TAG = /<(\\/?)([a-zA-Z][^\\s/>]*)[^>]*>/g;',
    'export const TITLE = /^ {0,3}#[ \\t]+(.*?)(?:[ \\t]+#+)?[ \\t]*$/;',
    "export const base = (url: string) => url.replace(/\\/+$/, '');",
  ].join('\n'));
  t.ok(found.includes('1 regexp/no-super-linear-backtracking'), `the tag pattern is reported: ${found.join('; ')}`);
  t.ok(found.includes('2 regexp/no-super-linear-backtracking'), 'the Markdown title pattern is reported');
  t.ok(found.includes('3 regexp/no-super-linear-move'), 'a trailing `\\/+$` is reported');
  t.same(found.filter((f) => !/^[123] regexp\/no-super-linear-(backtracking|move)$/.test(f)), [], 'nothing else');
});

t.test('linear patterns pass', async (t) => {
  t.same(await findings([
    'export const TAG = /<(\\/?)([a-zA-Z][^\\s/<>]*)(?:[\\s/][^<>]*)?>/g;',
    "export const base = (url: string) => url.replace(/(?<!\\/)\\/+$/, '');",
    'export const SLUG = /^[a-z][a-z0-9-]*$/;',
  ].join('\n')), []);
});

t.test('the check covers the sources and skips build output', async (t) => {
  const checked = async (path: string) => {
    const file = join(REPO_ROOT, path);
    if (await eslint.isPathIgnored(file)) return false;
    const config = await eslint.calculateConfigForFile(file);
    const rules = config?.rules ?? {};
    return rules['regexp/no-super-linear-backtracking']?.[0] === 2 && rules['regexp/no-super-linear-move']?.[0] === 2;
  };
  const sources = ['core/src/a.ts', 'core/web/src/a.tsx', 'plugins/feeds/a.ts', 'plugins/feeds/test/a.test.ts',
    'examples/hello-plugin/a.ts', 'test/support/a.mjs'];
  for (const path of sources) t.ok(await checked(path), `${path} is checked`);
  const output = ['.test-build/core/src/a.js', '.bench-build/core/src/a.js', 'core/dist/a.js', 'core/web/dist/assets/a.js',
    'plugins/feeds/web/dist/index.js', 'node_modules/x/a.js', 'plugins/feeds/node_modules/x/a.js'];
  for (const path of output) t.notOk(await checked(path), `${path} is not`);
});

t.test('npm test runs the check before the suite', async (t) => {
  const { scripts } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  t.match(scripts['lint:regexp'], /^eslint\b/);
  // The checks run side by side, and the suite only when all of them passed.
  t.match(scripts.test, /^node test\/support\/static-checks\.mjs && .*\btap-then-failures\.mjs$/);
  t.match(readFileSync(join(REPO_ROOT, 'test/support/static-checks.mjs'), 'utf8'), /'npm', \['run', 'lint:regexp'/);
});
