// Modules that want a PostgreSQL extension: created when the server has it (pgvector here, via the setup step);
// reported as degraded at start and on /health when it does not (as on the embedded database).
import t from 'tap';
import { defineModule } from '@quad/core';
import { captureLogs, startTestApp } from '@quad/core/testing';

const search = defineModule({
  name: 'search', title: 'Search', description: 'Vector search', category: 'Tests',
  databaseExtensions: [{ name: 'vector', without: 'search falls back to text search' }],
});
const exotic = defineModule({
  name: 'exotic', title: 'Exotic', description: 'Wants an extension no server has', category: 'Tests',
  databaseExtensions: [{ name: 'quad_no_such_extension', without: 'exotic features are off' }],
});

t.test('extensions: installed or degraded', async (t) => {
  const logs = captureLogs('warn');
  const quad = await startTestApp(t, { plugins: [search, exotic], logger: logs.logger });
  t.same(quad.services.extensions, { vector: true, quad_no_such_extension: false });
  const [row] = await quad.orm.em.fork().getConnection().execute("select extversion from pg_extension where extname = 'vector'");
  t.ok(row?.extversion, 'pgvector is installed in the database');
  t.same(quad.services.degraded, [{ module: 'exotic', extension: 'quad_no_such_extension', without: 'exotic features are off' }]);
  t.ok(logs.messages().includes('degraded: module exotic runs without the PostgreSQL extension "quad_no_such_extension": exotic features are off'));
  const health = (await quad.api.inject('/health')).json();
  t.equal(health.status, 'degraded');
  t.same(health.degraded, quad.services.degraded);
});
