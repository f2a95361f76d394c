// The calendar module's dashboard entry, built into web/dist/index.js and loaded by the dashboard at run time. React,
// @tanstack/react-query and @quad/web/sdk are the dashboard's own (its import map). One page, Calendar
// (/dashboard/calendar; the old settings#calendar opens it): the form, the next 60 days, the feed URL and the
// Discord sync, one file each. Routes: routes.ts (README "Routes").
import { useState } from 'react';
import { Page, type PageProps } from '@quad/web/sdk';
import { EventForm } from './event-form.js';
import { EventList } from './event-list.js';
import { FeedCard } from './feed-card.js';
import { SyncCard } from './sync-card.js';
import type { CalendarEvent } from './common.js';

/** The page at /dashboard/calendar (manifest pages.list[0].component). */
export function CalendarPage(_props: PageProps) {
  const [editing, setEditing] = useState<CalendarEvent | null>(null);
  return (
    <Page title="Calendar">
      <p>The org's events, with their time zone and repeats. Public events are listed for everyone and in the subscription feed.</p>
      <EventForm key={editing ? `${editing.id}:${editing.sequence}` : 'new'} event={editing} onDone={() => setEditing(null)} />
      <EventList onEdit={setEditing} onDeleted={(id) => setEditing((e) => (e?.id === id ? null : e))} />
      <FeedCard />
      <SyncCard />
    </Page>
  );
}
