// @quad/plugin-calendar: the calendar module (document 1, "What the service does"; category Engagement, off by
// default). Org events with a time zone and an optional recurrence rule, a public listing, a revocable iCalendar
// feed URL per org, and an optional copy of the Discord server's scheduled events. README: routes, tools, jobs,
// settings, tables, events, problems, pages and the design decisions the spec leaves open.
import { defineModule } from '@quad/core';
import { calendarRoutes } from './routes.js';
import { calendarTools } from './tools.js';
import { syncDueJob, syncJob } from './jobs.js';

export default defineModule({
  name: 'calendar',
  title: 'Calendar',
  description: 'Org events with time zones and repeats, a public listing, a feed URL calendar apps subscribe to, and your Discord server\'s scheduled events.',
  category: 'Engagement',
  coreVersion: '^0.1.0',
  scopes: [
    { name: 'calendar:read', description: 'Read the org\'s calendar events (public and not)' },
    { name: 'calendar:manage', description: 'Add, change and delete the org\'s calendar events' },
  ],
  // Calendar data has no limits (document 1, "Limits"); listings and the feed are bounded instead (README).
  tables: { calendar_events: 'org', calendar_feeds: 'org', calendar_settings: 'org' },
  migrations: new URL('./migrations/', import.meta.url),
  routes: calendarRoutes,
  tools: calendarTools,
  jobs: [syncJob, syncDueJob],
  events: ['calendar.event_created', 'calendar.event_changed', 'calendar.event_deleted'],
  // The Calendar page (web/index.tsx, built to web/dist/); settings#calendar already opens it (the core shell).
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [{ path: 'calendar', title: 'Calendar', icon: 'calendar', component: 'CalendarPage' }],
  },
});
