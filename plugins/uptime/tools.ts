// The uptime tools, for machine tokens while the module is on (the core checks the scope and binds the org):
// uptime.monitors and uptime.status (uptime:read), uptime.save and uptime.delete with confirm (uptime:manage).
// The core audits every call (tools.call), so these add no audit rows of their own.
import { badRequest, Id, Type, defineTool } from '@quad/core';
import { changeMonitor, createMonitor, deleteMonitor, getMonitor, LIMIT_KEY, listMonitors } from './store.js';
import { dailyUptime, recentChecks } from './history.js';
import { CheckOut, DayOut, MonitorOut, monitorFields, optionalFields } from './schemas.js';

const READ = 'uptime:read';
const MANAGE = 'uptime:manage';

export const monitorsTool = defineTool({
  name: 'uptime.monitors',
  title: 'List the org\'s uptime monitors',
  description: 'Every monitor of the org (an http(s) URL checked every interval_seconds) with its state (up, down, pending, paused), '
    + 'last check, failures in a row and uptime % over 24 hours and 30 days. Use it to answer "is our site up?". Example: {}',
  scope: READ,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ monitors: Type.Array(MonitorOut) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }) {
    return { monitors: await listMonitors(db) };
  },
});

export const statusTool = defineTool({
  name: 'uptime.status',
  title: 'One monitor with its recent days and checks',
  description: 'One monitor (by id, from uptime.monitors) with one row per UTC day (checks, up, uptime %, latency min/avg/max; days 1–90, '
    + 'default 7, oldest first) and its last 10 checks (status, latency, failure reason). Example: {"id": 3, "days": 7}',
  scope: READ,
  input: Type.Object({ id: Id, days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90 })) }, { additionalProperties: false }),
  output: Type.Object({ monitor: MonitorOut, days: Type.Array(DayOut), checks: Type.Array(CheckOut) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }, input) {
    return {
      monitor: await getMonitor(db, input.id),
      days: await dailyUptime(db, input.id, input.days ?? 7),
      checks: await recentChecks(db, input.id, 10),
    };
  },
});


export const saveTool = defineTool({
  name: 'uptime.save',
  title: 'Add or change an uptime monitor',
  description: 'Without id: adds a monitor (name and url required; interval_seconds 60–86400, default 300; expected_status default 200; '
    + 'timeout_ms 1000–30000, default 10000; keyword: text that must be on the page; down_after: failed checks in a row before it is down, '
    + '1–10, default 2). With id: changes that monitor; fields left out stay. The org may have 50 monitors unless its limit says otherwise. '
    + 'Example: {"name": "Website", "url": "https://example.org", "keyword": "Welcome"}',
  scope: MANAGE,
  input: Type.Object({ id: Type.Optional(Id), name: Type.Optional(monitorFields.name), url: Type.Optional(monitorFields.url), ...optionalFields }, { additionalProperties: false }),
  output: Type.Object({ created: Type.Boolean(), monitor: MonitorOut }),
  async handler({ db, services }, { id, ...input }) {
    if (id === undefined) {
      if (input.name === undefined || input.url === undefined) {
        const field = input.name === undefined ? 'name' : 'url';
        throw badRequest(`${field}: required for a new monitor`, 'validation', { field });
      }
      await services.limits.reserve(db.em, db.org, LIMIT_KEY);
      const made = await createMonitor(db, { ...input, name: input.name, url: input.url });
      return { created: true, monitor: await getMonitor(db, made) };
    }
    await changeMonitor(db, services, id, input);
    return { created: false, monitor: await getMonitor(db, id) };
  },
});

export const deleteTool = defineTool({
  name: 'uptime.delete',
  title: 'Delete an uptime monitor',
  description: 'Deletes a monitor with its check history. Without confirm it answers what it would delete. Example: {"id": 3, "confirm": true}',
  scope: MANAGE,
  input: Type.Object({ id: Id }, { additionalProperties: false }),
  output: Type.Object({ deleted: Type.Integer() }),
  annotations: { destructive: true },
  confirm: true,
  async preview({ db }, input) {
    const m = await getMonitor(db, input.id);
    return { delete: m.id, name: m.name, url: m.url, state: m.state, uptime_30d: m.uptime_30d };
  },
  async handler({ db, services }, input) {
    await deleteMonitor(db, services, input.id);
    return { deleted: input.id };
  },
});

export const uptimeTools = [monitorsTool, statusTool, saveTool, deleteTool];
