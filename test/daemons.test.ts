// Daemons: run by worker processes; a singleton runs in one process at a time and moves when that one stops.
import t from 'tap';
import { defineModule } from '@quad/core';
import { startTestApp } from '@quad/core/testing';

const events: string[] = [];
const beacon = defineModule({
  name: 'beacon', title: 'Beacon', description: 'A daemon for tests', category: 'Tests',
  daemons: [
    {
      name: 'beacon.singleton',
      async start({ services }) {
        events.push(`start ${services.settings.RELEASE}`);
        return async () => { events.push(`stop ${services.settings.RELEASE}`); };
      },
    },
    { name: 'beacon.everywhere', singleton: false, async start() { events.push('everywhere'); return async () => {}; } },
    { name: 'beacon.disabled', enabled: () => false, async start() { events.push('never'); return async () => {}; } },
  ],
});

t.test('a singleton daemon runs in one worker and fails over', async (t) => {
  const config = { DAEMON_RETRY_MS: 100 };
  const first = await startTestApp(t, { plugins: [beacon], role: 'worker', config: { ...config, RELEASE: 'w1' } });
  const second = await startTestApp(t, { plugins: [beacon], role: 'worker', databaseUrl: first.databaseUrl, config: { ...config, RELEASE: 'w2' } });
  t.same(first.daemons!.running().sort(), ['beacon.everywhere', 'beacon.singleton']);
  t.same(second.daemons!.running(), ['beacon.everywhere'], 'the second worker waits');
  t.same(events.filter((e) => e.startsWith('start')), ['start w1']);
  t.notOk(events.includes('never'), 'a disabled daemon never starts');
  await first.close();
  t.ok(events.includes('stop w1'), 'stopped on shutdown');
  for (let i = 0; i < 50 && !second.daemons!.running().includes('beacon.singleton'); i++) await new Promise((r) => setTimeout(r, 50));
  t.same(second.daemons!.running().sort(), ['beacon.everywhere', 'beacon.singleton'], 'the other worker took over');
  t.same(events.filter((e) => e.startsWith('start')), ['start w1', 'start w2']);
});

t.test('api processes run no daemons', async (t) => {
  const api = await startTestApp(t, { plugins: [beacon], role: 'api' });
  t.equal(api.daemons, null);
});
