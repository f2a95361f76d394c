// Modules with dashboard sections for the dashboard tests: `gauges` (a section and two series), `flaky` (a section
// and series that fail) and `quiet` (nothing for the dashboard).
import { defineModule } from '@quad/core';

export const gauges = defineModule({
  name: 'gauges', title: 'Gauges', description: 'Dashboard sections for the tests', category: 'Tests',
  dashboard: {
    async overview({ org }) {
      return { members: 42, sessions: [{ id: 's1', title: `${org.prefix} session` }] };
    },
    async trends(_ctx, { since, days }) {
      return [
        { key: 'gauges.members', title: 'Members', values: Array.from({ length: days }, (_, i) => i) },
        // Too short and with a bad value: the core fits it to `days` numbers.
        { key: 'gauges.sparse', title: `Since ${since.toISOString().slice(0, 10)}`, values: [1, Number.NaN, 3] },
      ];
    },
  },
});

export const flaky = defineModule({
  name: 'flaky', title: 'Flaky', description: 'A section that fails', category: 'Tests',
  dashboard: {
    async overview() { throw new Error('flaky section broke'); },
    async trends() { throw new Error('flaky series broke'); },
  },
});

export const quiet = defineModule({ name: 'quiet', title: 'Quiet', description: 'No dashboard', category: 'Tests' });
