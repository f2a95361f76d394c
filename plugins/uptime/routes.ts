// The officer routes of uptime (paths are the module's own: README "Routes"): prefix /api/uptime/<org>; 404 while
// the module is off for the org (the core's gate) and for another org's monitor. Creates, changes, deletes and
// Check now are audited.
import { ErrorBody, OrgParams, Type, type RoutesPlugin } from '@quad/core';
import { changeMonitor, createMonitor, deleteMonitor, getMonitor, LIMIT_KEY, listMonitors } from './store.js';
import { checkNow } from './check-now.js';
import { dailyUptime, recentChecks } from './history.js';
import { ChangeBody, CheckOut, ChecksQuery, CreateBody, DayOut, DaysQuery, Errors, MonitorOut, MonitorParams, officer } from './schemas.js';

const PREFIX = '/api/uptime/:org';
const tags = ['uptime'];

export const uptimeRoutes: RoutesPlugin = async (app) => {
  const services = app.quad;

  app.get(`${PREFIX}/monitors`, {
    config: officer,
    schema: { tags, summary: 'Every monitor with its state, last check, failures in a row and 24 h / 30 d uptime', params: OrgParams, response: { 200: Type.Object({ monitors: Type.Array(MonitorOut) }), ...Errors } },
  }, async (request) => ({ monitors: await listMonitors(request.db) }));

  app.post(`${PREFIX}/monitors`, {
    // The core reserves one under uptime.monitors (409 limit_reached when full) in the transaction the route runs in.
    config: { ...officer, countLimit: LIMIT_KEY },
    schema: { tags, summary: 'Add a monitor (201); 409 when the org has as many as its limit uptime.monitors', params: OrgParams, body: CreateBody, response: { 201: MonitorOut, ...Errors, 409: ErrorBody } },
  }, async (request, reply) => {
    const id = await createMonitor(request.db, request.body);
    const { url: _url, ...details } = request.body;
    await request.audit(request.em, 'uptime.created', { id, ...details, host: new URL(request.body.url.trim()).host });
    return reply.code(201).send(await getMonitor(request.db, id));
  });

  app.get(`${PREFIX}/monitors/:id`, {
    config: officer,
    schema: { tags, summary: 'One monitor', params: MonitorParams, response: { 200: MonitorOut, ...Errors } },
  }, async (request) => getMonitor(request.db, request.params.id));

  app.put(`${PREFIX}/monitors/:id`, {
    config: officer,
    schema: { tags, summary: 'Change a monitor; fields left out stay. A new URL, status, timeout or keyword, or a pause, starts it afresh (pending)', params: MonitorParams, body: ChangeBody, response: { 200: MonitorOut, ...Errors } },
  }, async (request) => {
    const { id } = request.params;
    await request.db.transaction(async (tx) => {
      const changed = await changeMonitor(tx, services, id, request.body);
      await request.audit(tx.em, 'uptime.changed', { id, changed });
    });
    return getMonitor(request.db, id);
  });

  app.delete(`${PREFIX}/monitors/:id`, {
    config: officer,
    schema: { tags, summary: 'Delete a monitor with its checks and days (and its down problem)', params: MonitorParams, response: { 200: Type.Object({ deleted: Type.Integer() }), ...Errors } },
  }, async (request) => {
    const { id } = request.params;
    await request.db.transaction(async (tx) => {
      const { name } = await deleteMonitor(tx, services, id);
      await request.audit(tx.em, 'uptime.deleted', { id, name });
    });
    return { deleted: id };
  });

  app.get(`${PREFIX}/monitors/:id/checks`, {
    config: officer,
    schema: { tags, summary: 'The latest checks, newest first (limit 1–500, default 50; before=<check id> for older ones; 30 days are kept)', params: MonitorParams, querystring: ChecksQuery, response: { 200: Type.Object({ checks: Type.Array(CheckOut) }), ...Errors } },
  }, async (request) => ({ checks: await recentChecks(request.db, request.params.id, request.query.limit, request.query.before) }));

  app.get(`${PREFIX}/monitors/:id/days`, {
    config: officer,
    schema: { tags, summary: 'One row per UTC day up to today, oldest first (days 1–400, default 30): checks, up, uptime %, latency min/avg/max', params: MonitorParams, querystring: DaysQuery, response: { 200: Type.Object({ days: Type.Array(DayOut) }), ...Errors } },
  }, async (request) => ({ days: await dailyUptime(request.db, request.params.id, request.query.days) }));

  app.post(`${PREFIX}/monitors/:id/check`, {
    config: officer,
    schema: { tags, summary: 'Check now: runs the check in the request (up to the monitor\'s timeout) and answers it; 409 while paused', params: MonitorParams, response: { 200: CheckOut, ...Errors, 409: ErrorBody } },
  }, async (request) => {
    const { id } = request.params;
    return checkNow(request.db, services, id, (tx) => request.audit(tx.em, 'uptime.checked', { id }));
  });
};
