// The next 60 days (GET /events): one row per occurrence, by start, with the event's place and whether it is public;
// Edit and Delete (asks first) for the org's own events. Events copied from Discord say so and are changed there.
import { useState } from 'react';
import { Button, Card, ConfirmDialog, EmptyState, ErrorNote, Loading, Table, useApi, useApiMutation } from '@quad/web/sdk';
import { useCalendarBase, whenText, type CalendarEvent, type Listing, type Occurrence } from './common.js';

interface Row { key: string; event: CalendarEvent; occurrence: Occurrence }

export function EventList({ onEdit, onDeleted }: { onEdit: (event: CalendarEvent) => void; onDeleted: (id: number) => void }) {
  const base = useCalendarBase();
  const listing = useApi<Listing>(`${base}/events`);
  const [deleting, setDeleting] = useState<CalendarEvent | null>(null);
  const remove = useApiMutation('DELETE', `${base}/events/${deleting?.id ?? 0}`, { invalidate: [`${base}/`] });
  const byUid = new Map((listing.data?.events ?? []).map((e) => [e.uid, e]));
  const rows: Row[] = (listing.data?.occurrences ?? []).map((o) => ({ key: `${o.uid}@${o.start_at}`, event: byUid.get(o.uid)!, occurrence: o }));

  return (
    <Card title="Upcoming">
      {listing.isPending ? <Loading /> : listing.error ? <ErrorNote error={listing.error} title="Events not loaded" />
        : rows.length === 0 ? <EmptyState title="Nothing in the next 60 days">Add an event with the form.</EmptyState>
          : (
            <Table caption="Upcoming events" rows={rows} rowKey={(r) => r.key} columns={[
              { header: 'When', cell: (r) => whenText(r.event, r.occurrence) },
              {
                header: 'Event', cell: (r) => (
                  <>
                    <strong>{r.event.title}</strong>
                    <div className="q-hint">
                      {[r.event.location, r.event.recurrence && 'repeats', r.event.public ? 'public' : 'officers only', r.event.read_only && 'from Discord'].filter(Boolean).join(' · ')}
                    </div>
                  </>
                ),
              },
              {
                header: 'Actions', cell: (r) => (r.event.read_only ? <span className="q-hint">Change it in Discord</span> : (
                  <span style={{ display: 'inline-flex', gap: 8 }}>
                    <Button onClick={() => onEdit(r.event)} aria-label={`Edit ${r.event.title}`}>Edit</Button>
                    <Button variant="danger" onClick={() => { remove.reset(); setDeleting(r.event); }} aria-label={`Delete ${r.event.title}`}>Delete</Button>
                  </span>
                )),
              },
            ]} />
          )}
      {listing.data?.truncated && <p className="q-hint">More than 500 occurrences: only the first are shown.</p>}
      <ConfirmDialog open={deleting !== null} title={`Delete ${deleting?.title ?? ''}?`} confirmLabel="Delete event" danger busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => remove.mutate(undefined, { onSuccess: () => { onDeleted(deleting!.id); setDeleting(null); } })}>
        <p>{deleting?.recurrence ? 'Every occurrence of the event is deleted.' : 'The event is deleted.'} Feed subscribers drop it at their next refresh.</p>
        {remove.error && <ErrorNote error={remove.error} title="Not deleted" />}
      </ConfirmDialog>
    </Card>
  );
}
