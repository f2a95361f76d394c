// The calendar tools: calendar.events (calendar:read), calendar.save and calendar.delete with confirm
// (calendar:manage), for machine tokens while the module is on; the core checks both and binds the org (the tools
// work through its org-bound handle, db).
import { Id, Type, badRequest, defineTool } from '@quad/core';
import { createEvent, eventView, findEvent, listWindow, updateEvent, deleteEvent, windowOf } from './store.js';
import { CreateBody, EventOut, ListingOut, UpdateBody, WindowQuery } from './schemas.js';

export const eventsTool = defineTool({
  name: 'calendar.events',
  title: 'The org\'s calendar in a window',
  description: 'Lists the org\'s events (public and not) that have an occurrence between from and to (ISO 8601; default now to 60 days on, '
    + 'at most 366 days), with every occurrence of recurring ones. Use it to answer "what is on next week" or to find an event\'s id before '
    + 'changing it. Example: {"from": "2026-12-01T00:00:00Z", "to": "2026-12-08T00:00:00Z"}',
  scope: 'calendar:read',
  input: WindowQuery,
  output: ListingOut,
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }, input) {
    const listing = await listWindow(db, windowOf(input, Date.now(), 'input'), false);
    return { ...listing, events: listing.events.map(eventView) };
  },
});

export const saveTool = defineTool({
  name: 'calendar.save',
  title: 'Add or change a calendar event',
  description: 'Without id: adds an event (title, start_at, end_at with offsets, time_zone an IANA name are required). With id: changes the '
    + 'fields given. all_day events take dates (end_at is the day after the last day); recurrence is an RRULE such as "FREQ=WEEKLY;BYDAY=TU;COUNT=10" '
    + '(FREQ DAILY/WEEKLY/MONTHLY/YEARLY, INTERVAL, COUNT or UNTIL, BYDAY, BYMONTHDAY); public (default true) puts it in the public listing and the '
    + 'feed. Events copied from Discord cannot be changed. Example: {"title": "Hack night", "start_at": "2026-12-01T18:00:00-05:00", '
    + '"end_at": "2026-12-01T21:00:00-05:00", "time_zone": "America/New_York", "location": "Room 101", "recurrence": "FREQ=WEEKLY;COUNT=8"}',
  scope: 'calendar:manage',
  input: Type.Object({ id: Type.Optional(Id), ...UpdateBody.properties }, { additionalProperties: false }),
  output: Type.Object({ created: Type.Boolean(), event: EventOut }),
  async handler({ db, services, caller }, { id, ...body }) {
    if (id === undefined) {
      const missing = (['title', 'start_at', 'end_at', 'time_zone'] as const).filter((k) => body[k] === undefined);
      if (missing.length) {
        throw badRequest(`input.${missing[0]}: required for a new event (title, start_at, end_at, time_zone)`, 'validation', { field: `input.${missing[0]}` });
      }
      const row = await createEvent(db, services, body as typeof CreateBody.static, caller.actor);
      return { created: true, event: eventView(row) };
    }
    return { created: false, event: eventView(await updateEvent(db, services, id, body)) };
  },
});

export const deleteTool = defineTool({
  name: 'calendar.delete',
  title: 'Delete a calendar event',
  description: 'Deletes an event with every occurrence. Without confirm it answers what it would delete. Events copied from Discord cannot be '
    + 'deleted here. Example: {"id": 12, "confirm": true}',
  scope: 'calendar:manage',
  input: Type.Object({ id: Id }, { additionalProperties: false }),
  output: Type.Object({ deleted: Type.Integer() }),
  confirm: true,
  annotations: { destructive: true },
  async preview({ db }, input) {
    const row = await findEvent(db, input.id);
    return { delete: row.id, title: row.title, start_at: new Date(row.start_at).toISOString(), recurrence: row.recurrence };
  },
  async handler({ db, services }, input) {
    await deleteEvent(db, services, input.id);
    return { deleted: input.id };
  },
});

export const calendarTools = [eventsTool, saveTool, deleteTool];
