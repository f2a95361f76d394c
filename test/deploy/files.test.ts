// The deployment recipe's files: both linters (rcjsuen's dockerfile-utils and dclint, as the README runs them) find no
// problem in Dockerfile and compose.yaml, and do find the mistakes put in broken copies, so the check can fail. Then
// the promises the files make, read from them: a multi-stage build whose last stage holds production dependencies and
// built files only, for a non-root user, with a health check; a build context without installed packages, local
// state or secrets; a compose file with PostgreSQL and pgvector, a one-shot migrate before the API and the worker,
// health checks and restart policies. image.test.ts runs what these files say to run.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import t from 'tap';
import { SettingsSchema } from '../../core/src/config/schema.js';
import {
  builtPackages, dockerignore, execForm, globRegExp, interpolate, last, lockedPackages, packageName, readCompose, readDockerfile, ROOT, workspaces,
  type ComposeService,
} from './recipe.js';
import { scriptRule } from './stage.js';

interface Result { code: number | null; stdout: string; stderr: string }

/** A linter as `npx <bin> …` runs it, from `cwd`. */
function lint(bin: string, args: string[], cwd = ROOT): Promise<Result> {
  const child = spawn(join(ROOT, 'node_modules', '.bin', bin), args, { cwd, env: { PATH: process.env.PATH, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** The build stage's commands and the tests that run them (the last stage's are run by image.test.ts). */
const BUILD_COMMANDS: Record<string, string> = {
  'npm ci --ignore-scripts --no-audit --no-fund': 'CI installs with npm ci (.ci/run); the packages whose install scripts it skips are reviewed below',
  'npm run build': 'tap\'s `before` script runs scripts/build.mjs, and test/startup/npm-start.test.ts runs `npm start`, which runs `npm run build`',
};

t.test('the linters pass the files and catch a broken copy', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'quad-deploy-lint-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const compose = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
  const brokenDockerfile = dockerfile.replace('COPY --from=build --parents', 'COPY --from=build --parent');
  const brokenCompose = compose.replace("'127.0.0.1:8001:8001'", "'8001:8001'").replace('pgvector/pgvector:pg15', 'pgvector/pgvector');
  t.not(brokenDockerfile, dockerfile);
  t.not(brokenCompose, compose);
  writeFileSync(join(dir, 'Dockerfile'), brokenDockerfile);
  writeFileSync(join(dir, 'compose.yaml'), brokenCompose);

  const [good, bad, goodCompose, badCompose] = await Promise.all([
    lint('dockerfile-utils', ['lint', '--json', 'Dockerfile']),
    lint('dockerfile-utils', ['lint', '--json', 'Dockerfile'], dir),
    lint('dclint', ['compose.yaml', '--formatter', 'json', '--max-warnings', '0']),
    lint('dclint', ['compose.yaml', '--formatter', 'json', '--max-warnings', '0'], dir),
  ]);
  t.same({ code: good.code, problems: JSON.parse(good.stdout) }, { code: 0, problems: [] }, 'dockerfile-utils: no error, no warning', { good });
  t.equal(bad.code, 1, 'dockerfile-utils fails on a mistyped flag', { bad });
  t.match(JSON.parse(bad.stdout), [{ severity: 'error', message: 'Unknown flag: parent' }]);

  t.equal(goodCompose.code, 0, 'dclint passes compose.yaml', { goodCompose });
  t.same(JSON.parse(goodCompose.stdout).flatMap((r: { messages: unknown[] }) => r.messages), [], 'dclint: no error, no warning');
  t.not(badCompose.code, 0, 'dclint fails a compose file that publishes a port on every interface and pulls an untagged image');
  const rules = JSON.parse(badCompose.stdout).flatMap((r: { messages: { rule: string }[] }) => r.messages.map((m) => m.rule));
  t.same([...new Set(rules)].sort(), ['no-unbound-port-interfaces', 'service-image-require-explicit-tag'], { badCompose });
});

t.test('the Dockerfile: built in one stage, run from another with production dependencies, as a non-root user', async (t) => {
  const dockerfile = readDockerfile();
  const node = dockerfile.stages.filter((s) => s.image !== 'scratch');
  const [build, runtime] = [node.find((s) => s.instructions.some((i) => i.args === 'npm run build')), node.at(-1)!];
  t.ok(build && build !== runtime, 'a build stage runs `npm run build`; the last stage does not');
  const pinned = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies.node;
  t.match(pinned, /^\d+\.\d+\.\d+$/, 'package.json pins Node.js to a release (its `node` dev dependency, what npm scripts and CI run)');
  t.equal(dockerfile.args.NODE_VERSION, pinned, 'the image builds and runs on the pinned release');
  for (const stage of node) t.equal(stage.image, `node:${dockerfile.args.NODE_VERSION}-bookworm-slim`, `${stage.name ?? 'the last stage'} is bookworm-slim`);
  for (const ins of build!.instructions.filter((i) => i.keyword === 'RUN')) {
    t.ok(BUILD_COMMANDS[ins.args], `RUN ${ins.args} (build stage) is a command the suite runs: ${BUILD_COMMANDS[ins.args] ?? 'none: add it to BUILD_COMMANDS with the test that runs it'}`);
  }

  const runs = runtime.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  t.ok(runs.some((r) => /^npm ci .*--omit=dev/.test(r)), 'the last stage installs production dependencies only');
  t.same(dockerfile.stages.flatMap((s) => s.instructions).filter((i) => /^npm ci\b/.test(i.args) && !i.args.includes('--ignore-scripts')), [], 'no install runs install scripts');
  t.match(last(runtime, 'ENV')?.args, /\bNODE_ENV=production\b/);
  const user = last(runtime, 'USER')?.args;
  t.ok(user && !/^(root|0)(:|$)/.test(user), `runs as a non-root user (${user})`);
  const order = runtime.instructions.map((i) => i.keyword);
  t.ok(order.lastIndexOf('USER') < order.indexOf('ENTRYPOINT'), 'USER is set before the process starts');
  t.ok(runs.includes(`install -d -o ${user} -g ${user} ${posix.join(last(runtime, 'WORKDIR')!.args, SettingsSchema.properties.DATA_DIR.default)}`),
    'DATA_DIR (WORKDIR/data) belongs to that user, the one folder it writes');

  const healthcheck = execForm(last(runtime, 'HEALTHCHECK')!);
  t.equal(healthcheck[0], 'node', 'the health check needs nothing but node (slim images have no curl)');
  t.match(healthcheck.join(' '), /\/health\/live/, 'and probes the API\'s liveness');
  t.same(last(runtime, 'EXPOSE')?.args.split(/\s+/), [SettingsSchema.properties.PORT.default, SettingsSchema.properties.TOOL_PORT.default].map(String),
    'EXPOSE: the default PORT and TOOL_PORT');

  const start = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start.split(' ');
  t.same([...execForm(last(runtime, 'ENTRYPOINT')!), 'run'], start, 'the entrypoint is what `npm start` runs, without the build');
  t.same(execForm(last(runtime, 'CMD')!), ['run', '--role', 'api'], 'and the image serves the API by default');
});

t.test('the COPYs take every workspace\'s package.json and built folders', async (t) => {
  const dockerfile = readDockerfile();
  const sources = (stage: typeof dockerfile.stages[number], from?: string) => stage.instructions
    .filter((i) => i.keyword === 'COPY' && i.flags.from === from && i.flags.parents)
    .flatMap((i) => i.args.split(/\s+/).slice(0, -1))
    .map((s) => globRegExp(s.includes('/./') ? s.slice(s.indexOf('/./') + 3) : s));
  const manifests = sources(dockerfile.stages.find((s) => s.image === 'scratch')!);
  for (const file of ['package.json', 'package-lock.json', ...workspaces().map((w) => `${w}/package.json`)]) {
    t.ok(manifests.some((m) => m.test(file)), `${file} is installed from`);
  }
  const built = sources(dockerfile.stages.at(-1)!, 'build');
  for (const dist of [...builtPackages().map((p) => `${p}/dist`), 'core/web/dist']) t.ok(built.some((m) => m.test(dist)), `${dist} is in the image`);
});

t.test('the build context leaves out installed packages, builds, local state and secrets, and nothing the build needs', async (t) => {
  const ignored = dockerignore();
  for (const path of ['node_modules/fastify/package.json', 'core/node_modules/commander/index.js', 'core/dist/cli.js', 'core/web/dist/index.html',
    'plugins/feeds/web/dist/index.js', 'data/pg/PG_VERSION', 'data/jwt_private.pem', 'config/local.json', '.env', '.env.production', '.git/HEAD']) {
    t.ok(ignored(path), `${path} stays out`);
  }
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  const left = files.filter(ignored).filter((f) => !/(^|\/)test\//.test(f) && !f.startsWith('.ci/') && !['Dockerfile', 'compose.yaml', '.dockerignore'].includes(f));
  t.same(left, [], 'what it leaves out of the sources is tests, CI scripts and the deployment files');
  t.ok(files.filter((f) => f.startsWith('core/src/') || f.startsWith('scripts/')).every((f) => !ignored(f)), 'the sources and build scripts go in');
});

t.test('every package with an install script is reviewed: the image runs none', async (t) => {
  const scripted = Object.entries(lockedPackages()).filter(([path, pkg]) => pkg.hasInstallScript && path.includes('node_modules/')).map(([path]) => packageName(path));
  t.ok(scripted.length, 'the lockfile has packages with install scripts');
  for (const name of new Set(scripted)) {
    t.ok(scriptRule(name), `${name}: ${scriptRule(name)?.why ?? 'has an install script the image skips: check it needs none and add it to WITHOUT_INSTALL_SCRIPT in test/deploy/stage.ts'}`);
  }
});

t.test('compose.yaml: PostgreSQL with pgvector, a one-shot migrate, then the API and the worker', async (t) => {
  const { services, volumes } = readCompose();
  t.same(Object.keys(services).sort(), ['api', 'db', 'migrate', 'worker']);
  const { db, migrate, api, worker } = services as Record<string, ComposeService>;

  t.equal(db.image, 'pgvector/pgvector:pg15', 'PostgreSQL 15 (the version the tests and the embedded server run) with pgvector');
  t.same(db.healthcheck?.test?.slice(0, 2), ['CMD', 'pg_isready'], 'healthy once pg_isready says so');
  t.ok(db.volumes?.includes('pgdata:/var/lib/postgresql/data') && volumes && 'pgdata' in volumes, 'its data in a named volume');
  t.match(db.environment?.POSTGRES_PASSWORD, /^\$\{POSTGRES_PASSWORD:\?/, 'its password from .env, required');

  const dataDir = posix.join(last(readDockerfile().stages.at(-1)!, 'WORKDIR')!.args, SettingsSchema.properties.DATA_DIR.default);
  for (const [name, service] of Object.entries({ migrate, api, worker })) {
    t.equal(service.build, '.', `${name}: the image of the Dockerfile`);
    t.equal(service.env_file, '.env', `${name}: settings and secrets from .env`);
    t.ok(service.volumes?.includes(`quad-data:${dataDir}`) && volumes && 'quad-data' in volumes, `${name}: DATA_DIR (${dataDir}) in the volume every Quad process shares`);
    const url = new URL(interpolate(service.environment!.DATABASE_URL!, { POSTGRES_PASSWORD: 'from-dot-env' }));
    t.same([url.hostname, url.username, url.password, url.pathname], ['db', db.environment!.POSTGRES_USER, 'from-dot-env', `/${db.environment!.POSTGRES_DB}`],
      `${name}: DATABASE_URL names the db service, its user, password (POSTGRES_PASSWORD) and database`);
    t.equal(interpolate(String(service.environment!.ACCESS_ENFORCE), {}), 'true', `${name}: ACCESS_ENFORCE=true unless .env says otherwise`);
    t.equal(interpolate(String(service.environment!.ACCESS_ENFORCE), { ACCESS_ENFORCE: 'false' }), 'false', `${name}: .env may choose report mode`);
  }
  t.same(migrate.command, ['migrate']);
  t.same(migrate.depends_on, { db: { condition: 'service_healthy' } }, 'migrate waits for the database');
  t.equal(migrate.restart, 'no', 'and runs once');
  for (const [name, service] of Object.entries({ api, worker })) {
    t.same(service.depends_on, { migrate: { condition: 'service_completed_successfully' } }, `${name} starts once the migrations are applied`);
    t.equal(service.restart, 'unless-stopped', `${name} restarts when it exits`);
  }
  t.same(worker.command, ['run', '--role', 'worker']);
  t.same([migrate.healthcheck, worker.healthcheck], [{ disable: true }, { disable: true }], 'the image\'s HTTP health check is off where nothing serves HTTP');
  t.notOk(api.healthcheck, 'the API keeps the image\'s health check');
  t.same(api.ports, ['127.0.0.1:8000:8000', '127.0.0.1:8001:8001'], 'the API and MCP ports, on the host\'s loopback for a TLS proxy');

  // Each service's limits: a default for a small host, and the .env variables that change them.
  const defaults = { api: ['1.0', '1g'], db: ['1.0', '2g'], migrate: ['1.0', '512m'], worker: ['1.0', '1g'] };
  for (const [name, [cpus, memory]] of Object.entries(defaults)) {
    const limits = (services as Record<string, ComposeService>)[name]!.deploy?.resources?.limits;
    t.same([interpolate(String(limits?.cpus), {}), interpolate(String(limits?.memory), {})], [cpus, memory], `${name}: ${cpus} CPU and ${memory} by default`);
    const prefix = name.toUpperCase();
    t.same([interpolate(String(limits?.cpus), { [`${prefix}_CPUS`]: '3' }), interpolate(String(limits?.memory), { [`${prefix}_MEMORY`]: '6g' })], ['3', '6g'],
      `${name}: ${prefix}_CPUS and ${prefix}_MEMORY in .env change them`);
  }
});
