// The calendar's routes (paths are ours: README "Routes"). Officers: /api/calendar/<org>/events, /feed, /settings,
// /sync (404 while the module is off for the org: the core's gate); changes are audited. Anyone: the public listing
// /api/calendar/<org>/public/events (same gate) and the feed /api/calendar/feed/<token>.ics, which names no org and
// checks the module itself. Routes with an org work through its org-bound handle (request.db); the feed has none.
import { createHash } from 'node:crypto';
import { ErrorBody, OrgParams, Type, type RoutesPlugin } from '@quad/core';
import { createEvent, deleteEvent, eventView, findEvent, listWindow, publicView, updateEvent, windowOf } from './store.js';
import { feedOf, feedPath, feedStatus, revokeFeed, rotateFeed } from './feed.js';
import { readSettings, writeSettings } from './settings.js';
import { startSync } from './jobs.js';
import {
  CreateBody, Errors, EventOut, EventParams, FeedFileParams, FeedMadeOut, FeedOut, ListingOut, officer, PublicListingOut, SettingsBody,
  SettingsOut, UpdateBody, WindowQuery,
} from './schemas.js';

const PREFIX = '/api/calendar/:org';
const tags = ['calendar'];
const Conflict = { 409: ErrorBody };

export const calendarRoutes: RoutesPlugin = async (app) => {
  const services = app.quad;

  app.get(`${PREFIX}/events`, {
    config: officer,
    schema: { tags, summary: 'Events with an occurrence in the window, and the occurrences (public and not)', params: OrgParams, querystring: WindowQuery, response: { 200: ListingOut, ...Errors } },
  }, async (request) => {
    const listing = await listWindow(request.db, windowOf(request.query), false);
    return { ...listing, events: listing.events.map(eventView) };
  });

  app.post(`${PREFIX}/events`, {
    config: officer,
    schema: { tags, summary: 'Add an event', params: OrgParams, body: CreateBody, response: { 201: EventOut, ...Errors } },
  }, async (request, reply) => {
    const row = await request.db.transaction(async (tx) => {
      const made = await createEvent(tx, services, request.body, request.caller?.actor ?? null);
      await request.audit(tx.em, 'calendar.event_created', { id: made.id, title: made.title, start_at: made.start_at, recurrence: made.recurrence });
      return made;
    });
    return reply.code(201).send(eventView(row));
  });

  app.get(`${PREFIX}/events/:id`, {
    config: officer,
    schema: { tags, summary: 'One event', params: EventParams, response: { 200: EventOut, ...Errors } },
  }, async (request) => eventView(await findEvent(request.db, request.params.id)));

  app.put(`${PREFIX}/events/:id`, {
    config: officer,
    schema: { tags, summary: 'Change an event (fields left out keep their values); 409 synced_event for an event copied from Discord', params: EventParams, body: UpdateBody, response: { 200: EventOut, ...Errors, ...Conflict } },
  }, async (request) => {
    const row = await request.db.transaction(async (tx) => {
      const changed = await updateEvent(tx, services, request.params.id, request.body);
      await request.audit(tx.em, 'calendar.event_changed', { id: changed.id, fields: Object.keys(request.body) });
      return changed;
    });
    return eventView(row);
  });

  app.delete(`${PREFIX}/events/:id`, {
    config: officer,
    schema: { tags, summary: 'Delete an event (every occurrence); 409 synced_event for an event copied from Discord', params: EventParams, response: { 200: Type.Object({ deleted: Type.Integer() }), ...Errors, ...Conflict } },
  }, async (request) => {
    await request.db.transaction(async (tx) => {
      const old = await deleteEvent(tx, services, request.params.id);
      await request.audit(tx.em, 'calendar.event_deleted', { id: old.id, title: old.title });
    });
    return { deleted: request.params.id };
  });

  app.get(`${PREFIX}/feed`, {
    config: officer,
    schema: { tags, summary: 'Whether the org has a feed URL, and since when (the URL itself is shown only when made)', params: OrgParams, response: { 200: FeedOut, ...Errors } },
  }, async (request) => feedStatus(request.db));

  app.post(`${PREFIX}/feed`, {
    config: officer,
    schema: { tags, summary: 'Make the feed URL, or a new one (the old URL stops working); the answer is the only time it is shown', params: OrgParams, response: { 201: FeedMadeOut, ...Errors } },
  }, async (request, reply) => {
    const made = await request.db.transaction(async (tx) => {
      const feed = await rotateFeed(tx);
      await request.audit(tx.em, feed.rotated ? 'calendar.feed_rotated' : 'calendar.feed_created', {});
      return feed;
    });
    const path = feedPath(made.token);
    return reply.code(201).send({ url: `${request.protocol}://${request.host}${path}`, path, rotated: made.rotated, created_at: made.created_at });
  });

  app.delete(`${PREFIX}/feed`, {
    config: officer,
    schema: { tags, summary: 'Revoke the feed URL (subscribers get 404)', params: OrgParams, response: { 200: Type.Object({ revoked: Type.Boolean() }), ...Errors } },
  }, async (request) => {
    await request.db.transaction(async (tx) => {
      await revokeFeed(tx);
      await request.audit(tx.em, 'calendar.feed_revoked', {});
    });
    return { revoked: true };
  });

  app.get(`${PREFIX}/settings`, {
    config: officer,
    schema: { tags, summary: 'Discord sync on or off, and the last sync', params: OrgParams, response: { 200: SettingsOut, ...Errors } },
  }, async (request) => readSettings(request.db));

  app.put(`${PREFIX}/settings`, {
    config: officer,
    schema: { tags, summary: 'Turn Discord sync on or off (off deletes the events it copied)', params: OrgParams, body: SettingsBody, response: { 200: SettingsOut, ...Errors } },
  }, async (request) => {
    await request.db.transaction(async (tx) => {
      const { removed } = await writeSettings(tx, request.body.discord_sync);
      await request.audit(tx.em, 'calendar.settings_changed', { discord_sync: request.body.discord_sync, removed });
    });
    return readSettings(request.db);
  });

  app.post(`${PREFIX}/sync`, {
    config: officer,
    schema: { tags, summary: 'Start a Discord sync now (202); 409 sync_off while sync is off, 409 job_running while one is queued or running', params: OrgParams, response: { 202: Type.Object({ run_id: Type.Integer() }), ...Errors, ...Conflict } },
  }, async (request, reply) => {
    const started = await request.db.transaction(async (tx) => {
      const run = await startSync(tx, services);
      await request.audit(tx.em, 'calendar.sync_started', {});
      return run;
    });
    return reply.code(202).send(started);
  });

  app.get(`${PREFIX}/public/events`, {
    config: { auth: 'public' },
    schema: { tags, summary: 'The org\'s public events with an occurrence in the window, and the occurrences (anyone)', params: OrgParams, querystring: WindowQuery, response: { 200: PublicListingOut, 400: ErrorBody, 404: ErrorBody } },
  }, async (request, reply) => {
    const listing = await listWindow(request.db, windowOf(request.query), true);
    reply.header('cache-control', 'public, max-age=60');
    return { ...listing, events: listing.events.map(publicView) };
  });

  app.get('/api/calendar/feed/:file', {
    config: { auth: 'public' },
    schema: {
      tags, summary: 'The iCalendar feed (text/calendar) of the org whose token this is: its public events. 404 for an unknown or revoked token',
      params: FeedFileParams, response: { 200: Type.String({ description: 'text/calendar' }), 304: Type.Null(), 400: ErrorBody, 404: ErrorBody },
    },
  }, async (request, reply) => {
    const feed = await feedOf(services, request.params.file.slice(0, -'.ics'.length));
    const etag = `"${createHash('sha256').update(feed.text).digest('base64url').slice(0, 27)}"`;
    // Calendar apps poll: let them and any cache in between ask again cheaply; the URL is a credential, so private.
    reply.header('cache-control', 'private, max-age=900').header('etag', etag).header('x-robots-tag', 'noindex');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send(null);
    return reply.type('text/calendar; charset=utf-8').header('content-disposition', `inline; filename="${feed.org}.ics"`).send(feed.text);
  });
};
