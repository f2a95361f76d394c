// PLUGINS_EXTRA adds plugins to the list of config/default.json without repeating it; PLUGINS still replaces the
// list. Seen the way an operator sees it: the modules `quad org modules` lists.
import t from 'tap';
import { defaultDatabase, quad } from './processes.js';

t.test('PLUGINS_EXTRA adds to the default plugins; PLUGINS replaces them', async (t) => {
  const db = await defaultDatabase(t, ['./examples/hello-plugin']);
  const modules = async (env: Record<string, string>) => {
    const listed = await quad(['org', 'modules', 'acm'], { env: { DATABASE_URL: db.url, ...env } });
    t.equal(listed.code, 0, listed.stderr);
    return listed.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]).sort();
  };
  t.equal((await quad(['org', 'add', '--prefix', 'acm', '--name', 'ACM', '--guild', '1001'], { env: { DATABASE_URL: db.url } })).code, 0);

  t.same(await modules({}), ['agents', 'calendar', 'event_webhook', 'feeds', 'hostprov', 'knowledge', 'leetcode', 'podhost', 'points', 'store', 'submodules', 'uptime'], 'config/default.json');
  t.same(await modules({ PLUGINS_EXTRA: './examples/hello-plugin' }), ['agents', 'calendar', 'event_webhook', 'feeds', 'hello', 'hostprov', 'knowledge', 'leetcode', 'podhost', 'points', 'store', 'submodules', 'uptime'], 'added');
  t.same(await modules({ PLUGINS_EXTRA: './examples/hello-plugin,@quad/plugin-points' }), ['agents', 'calendar', 'event_webhook', 'feeds', 'hello', 'hostprov', 'knowledge', 'leetcode', 'podhost', 'points', 'store', 'submodules', 'uptime'], 'a plugin in both lists loads once');
  t.same(await modules({ PLUGINS: './examples/hello-plugin' }), ['hello'], 'PLUGINS replaces the list');
});
