// Settings: files < environment < overrides, converted and checked; every bad setting named in one error.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
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
