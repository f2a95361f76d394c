// Modules for the events tests: `probe` emits two kinds and handles one (and can be told to fail, after a
// write, to show the savepoint); `listener` receives every event; both record what their handlers saw.
import { defineModule, Type, type EmittedEvent, type EntityManager, type RoutesPlugin } from '@quad/core';
import { Notification } from '../../core/src/entities/logs.js';

export interface Seen { module: string; kind: string; id: number; orgId: number; visible: number }
export const seen: Seen[] = [];

const probeRoutes: RoutesPlugin = async (app) => {
  app.get('/api/probe/:org/boom', { config: { auth: 'public' }, schema: { params: Type.Object({ org: Type.String() }) } }, async () => {
    throw new Error('probe exploded');
  });
};

/** Records the event and how many notifications the handler's EntityManager sees (it is bound to the org). */
async function record(module: string, em: EntityManager, event: EmittedEvent) {
  const visible = await em.count(Notification, {});
  seen.push({ module, kind: event.kind, id: event.id, orgId: event.orgId, visible });
}

export const probe = defineModule({
  name: 'probe', title: 'Probe', description: 'Emits and handles events for the tests', category: 'Tests',
  events: ['probe.happened', 'probe.other'],
  routes: probeRoutes,
  eventHandlers: [{
    events: ['probe.happened'],
    async handler({ em }, event) {
      await record('probe', em, event);
      if (event.data.fail) {
        await em.execute(`insert into audit_log (organization_id, actor, action) values (?, 'system', 'probe.handler_wrote')`, [event.orgId]);
        throw new Error('probe handler broke on purpose');
      }
    },
  }],
});

export const listener = defineModule({
  name: 'listener', title: 'Listener', description: 'Receives every event', category: 'Tests',
  eventHandlers: [{ events: '*', async handler({ em }, event) { await record('listener', em, event); } }],
});
