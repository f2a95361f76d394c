// `quad plugin new <name>`: start a plugin from examples/hello-plugin, renamed. Every name of the example is derived
// from its module id (`hello`: hello:read, hello.greet, hello_greetings, HELLO_GREETING, HelloGreeting,
// helloGreeter, quad-plugin-hello), so replacing each form of the id gives a plugin the registry, the typecheck
// and the tests accept at once.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, type Command } from 'commander';
import { MODULE_ID_PATTERN } from '../modules/manifest-schema.js';
import { print, tell, type Act } from './output.js';

const TEMPLATE = fileURLToPath(new URL('../../../examples/hello-plugin/', import.meta.url));
const TEMPLATE_ID = 'hello';
const TEMPLATE_PATH = './examples/hello-plugin';

export function definePluginCommands(program: Command, act: Act) {
  const plugin = program.command('plugin').description('write plugins');
  plugin.command('new')
    .description('write a renamed copy of examples/hello-plugin (a route, scope, tool, job, limit, setting, migration, dashboard page and test)')
    .argument('<name>', 'the module id: 2–32 lower-case letters, digits and _, starting with a letter', moduleId)
    .option('--dir <folder>', 'the folder to write it in', 'plugins')
    .action(act(newPlugin));
}

function moduleId(value: string): string {
  if (!new RegExp(MODULE_ID_PATTERN).test(value)) throw new InvalidArgumentError('A module id is 2–32 lower-case letters, digits and _, starting with a letter.');
  return value;
}

/** The forms of a module id the example uses. */
function nameForms(id: string) {
  const words = id.split('_').filter(Boolean);
  const pascal = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  return { id, upper: id.toUpperCase(), pascal, camel: pascal[0].toLowerCase() + pascal.slice(1), kebab: words.join('-') };
}

/** The example's text (or a file path in it) with every form of `hello` replaced by the new plugin's. */
function renamed(text: string, id: string, path: string): string {
  const to = nameForms(id);
  return text
    .replaceAll(TEMPLATE_PATH, path)
    .replaceAll(`quad-plugin-${TEMPLATE_ID}`, `quad-plugin-${to.kebab}`)
    .replaceAll(TEMPLATE_ID.toUpperCase(), to.upper)
    .replaceAll('Hello', to.pascal)
    .replace(/hello(?=[A-Z])/g, to.camel)
    .replaceAll(TEMPLATE_ID, to.id);
}

async function newPlugin(id: string, options: { dir: string }): Promise<number> {
  const { CORE_MODULES } = await import('../modules/load.js');
  if (CORE_MODULES.some((m) => m.name === id)) {
    tell(`error: "${id}" is a core module's id; choose another name`);
    return 1;
  }
  const target = resolve(options.dir, id);
  if (existsSync(target)) {
    tell(`error: ${target} already exists; choose another name or folder`);
    return 1;
  }
  // How the operator's settings and the plugin's own test name it: a path from the working directory.
  const fromCwd = relative(process.cwd(), target).split(sep).join('/');
  const path = fromCwd.startsWith('..') ? fromCwd : `./${fromCwd}`;
  mkdirSync(resolve(options.dir), { recursive: true });
  // Not the template's installed packages, nor its builds (dist/, hello's JavaScript under the old names, and
  // web/dist/, its page bundle): the copy is built from its own renamed source.
  cpSync(TEMPLATE, target, {
    recursive: true,
    filter: (from) => !from.split(sep).includes('node_modules') && !['dist', join('web', 'dist')].includes(relative(TEMPLATE, from)),
  });
  renameTree(target, id, path);
  print(`wrote ${path}: module "${id}", package quad-plugin-${nameForms(id).kebab}`);
  tell(`next: add "${path}" to PLUGINS_EXTRA (config/local.json, or PLUGINS_EXTRA=${path} in the environment), then quad run`);
  tell(`      npx tap ${path}/test   (its tests)   npm run typecheck`);
  if (path.startsWith('./plugins/')) {
    tell('      npm install   (adds it to the workspaces in package-lock.json, so npm ci keeps working)');
    tell('      npm run build   (also builds its dashboard page, web/index.tsx, into web/dist/)');
  } else {
    tell(`      its dashboard page: buildPluginPages({ entry: '${path}/web/index.tsx', outdir: '${path}/web/dist' }) of @quad/web/build`);
  }
  return 0;
}

/** Rewrite every file of the copy, and rename the files and folders whose names hold the example's id. */
function renameTree(dir: string, id: string, path: string) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const from = join(dir, entry.name);
    const to = join(dir, renamed(entry.name, id, path));
    if (to !== from) renameSync(from, to);
    if (entry.isDirectory()) renameTree(to, id, path);
    else writeFileSync(to, renamed(readFileSync(to, 'utf8'), id, path));
  }
}
