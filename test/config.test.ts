// Settings: files < environment < overrides, converted and checked; every bad setting named in one error.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { ConfigSource } from '@quad/core';
import { loadSettings } from '../core/src/config/load.js';
import { loadRegistry } from '../core/src/modules/load.js';

const dirWith = (files: Record<string, unknown>) => {
  const dir = mkdtempSync(join(tmpdir(), 'quad-cfg-'));
  for (const [name, value] of Object.entries(files)) writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));
  return dir;
};

t.test('defaults', async (t) => {
  const s = loadSettings(new ConfigSource({ dir: dirWith({}), env: {} }));
  t.equal(s.PORT, 8000);
  t.equal(s.JOB_THREADS, 4);
  t.equal(s.MAX_REQUEST_MB, 110);
  t.same(s.PLUGINS, []);
  t.equal(s.DATABASE_URL, undefined);
});

t.test('precedence: default.json < <NODE_ENV>.json < local.json < environment < overrides', async (t) => {
  const dir = dirWith({ 'default.json': { PORT: 1, JOB_THREADS: 2, LOG_LEVEL: 'warn', PLUGINS: ['a'] }, 'production.json': { PORT: 3 }, 'local.json': { JOB_THREADS: 5 } });
  const s = loadSettings(new ConfigSource({ dir, env: { NODE_ENV: 'production', LOG_LEVEL: 'debug', PLUGINS: 'x, ./y' }, overrides: { PORT: 9 } }));
  t.equal(s.PORT, 9);
  t.equal(s.JOB_THREADS, 5);
  t.equal(s.LOG_LEVEL, 'debug');
  t.same(s.PLUGINS, ['x', './y'], 'lists are comma-separated in the environment');
  const noOverride = loadSettings(new ConfigSource({ dir, env: { NODE_ENV: 'production' } }));
  t.equal(noOverride.PORT, 3);
});

t.test('every bad setting is named in one error', async (t) => {
  t.throws(() => loadSettings(new ConfigSource({ dir: dirWith({}), env: { PORT: 'eighty', JOB_THREADS: '0', DATABASE_URL: 'mysql://x', DASHBOARD_URL: 'dash' } })), {
    name: 'ConfigError',
    message: /^Invalid settings:\n {2}PORT: Expected integer \(got "eighty"\)\n {2}DATABASE_URL: .*\n {2}JOB_THREADS: Expected integer to be greater or equal to 1 \(got 0\)\n {2}DASHBOARD_URL: /,
  });
});

t.test('a typo in a config file is refused at boot', async (t) => {
  await t.rejects(loadRegistry(new ConfigSource({ dir: dirWith({ 'default.json': { PROT: 8000, LIMIT_KNOWLEDGE_SOURCES: 5 } }), env: {} })), {
    name: 'ConfigError', message: /^Invalid settings:\n {2}PROT \(in \S+default\.json\): unknown setting; did you mean PORT\?$/,
  });
});

t.test('a config file that is not JSON is named', async (t) => {
  const dir = dirWith({ 'default.json': '{ "PORT": ' });
  t.throws(() => new ConfigSource({ dir, env: {} }), { name: 'ConfigError', message: /default\.json: / });
});

t.test('an old setting name is read where the new one is not set, with one warning naming the new name', async (t) => {
  const schema = Type.Object({
    NEW_NAME: Type.String({ default: 'unset', legacyNames: ['OLD_NAME'] }),
    NEW_LIST: Type.Array(Type.String(), { default: [], legacyNames: ['OLD_LIST'] }),
  });
  const fromEnv = new ConfigSource({ dir: dirWith({}), env: { OLD_NAME: 'from-old', OLD_LIST: 'a, b' } });
  t.same(fromEnv.resolve(schema), { NEW_NAME: 'from-old', NEW_LIST: ['a', 'b'] }, 'values, lists split as for the new name');
  t.same(fromEnv.warnings(), [
    'OLD_NAME (in the environment): old name of NEW_NAME; rename it to NEW_NAME',
    'OLD_LIST (in the environment): old name of NEW_LIST; rename it to NEW_LIST',
  ]);
  fromEnv.resolve(schema);
  t.equal(fromEnv.warnings().length, 2, 'resolving again warns no more');

  const both = new ConfigSource({ dir: dirWith({}), env: { OLD_NAME: 'old', NEW_NAME: 'new' } });
  t.equal(both.resolve(schema).NEW_NAME, 'new', 'the new name wins in the same place');
  t.same(both.warnings(), ['OLD_NAME (in the environment): old name of NEW_NAME, ignored because NEW_NAME is set as well; remove it']);

  const dir = dirWith({ 'default.json': { OLD_NAME: 'file-old' } });
  const layered = new ConfigSource({ dir, env: { NEW_NAME: 'env-new' } });
  t.equal(layered.resolve(schema).NEW_NAME, 'env-new', 'the environment still beats a file, whichever name each uses');
  t.match(layered.warnings(), [/^OLD_NAME \(in \S+default\.json\): old name of NEW_NAME/]);
  t.equal(new ConfigSource({ dir, env: {} }).resolve(schema).NEW_NAME, 'file-old', 'an old name in a file is read');

  const clean = new ConfigSource({ dir: dirWith({}), env: { NEW_NAME: 'n' } });
  clean.resolve(schema);
  t.same(clean.warnings(), [], 'no old name: no warning');

  t.throws(() => new ConfigSource({ dir: dirWith({}), env: { OLD_NAME: 'Not Lower' } }).resolve(Type.Object({ NEW_NAME: Type.String({ pattern: '^[a-z]+$', legacyNames: ['OLD_NAME'] }) })), {
    name: 'ConfigError', message: /^Invalid settings:\n {2}NEW_NAME: .*\(got "Not Lower"\)$/,
  }, 'a bad value under an old name is named by the setting it sets');
});

t.test('an old name is a known setting, not a typo', async (t) => {
  const dir = dirWith({ 'default.json': { COMPUTE_POD_IMAGE: 'example/pod:1', COMPUTE_CLI_NAME: 'gpu' } });
  const source = new ConfigSource({ dir, env: {}, overrides: { PLUGINS: ['@quad/plugin-pods'] } });
  const { moduleSettings, warnings } = await loadRegistry(source);
  const pods = moduleSettings.get('podhost') as { PODHOST_POD_IMAGE: string; PODHOST_CLI_NAME: string };
  t.equal(pods.PODHOST_POD_IMAGE, 'example/pod:1');
  t.equal(pods.PODHOST_CLI_NAME, 'gpu');
  t.equal(warnings.length, 2, 'one warning per old name');
  t.match(warnings.join('\n'), /COMPUTE_POD_IMAGE \(in \S+default\.json\): old name of PODHOST_POD_IMAGE; rename it to PODHOST_POD_IMAGE/);
  t.match(warnings.join('\n'), /COMPUTE_CLI_NAME .*rename it to PODHOST_CLI_NAME/);
  await t.rejects(loadRegistry(new ConfigSource({ dir: dirWith({}), env: {}, overrides: { PLUGINS: ['@quad/plugin-pods'], COMPUTE_CLI_NAME: 'Not A Name' } })), {
    name: 'ConfigError', message: /PODHOST_CLI_NAME: /,
  }, 'an old name\'s value is checked by the new name\'s rule');
});
