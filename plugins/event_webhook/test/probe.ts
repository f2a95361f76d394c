// A module for the webhook tests that emits two event kinds (the tests emit them through the core's services).
import { defineModule } from '@quad/core';

export const probe = defineModule({
  name: 'probe', title: 'Probe', description: 'Emits events for the webhook tests', category: 'Tests',
  events: ['probe.happened', 'probe.other'],
});
