// Add an event, or change the one being edited (POST /events, PUT /events/<id>): title, start and end as local
// date and time in a chosen zone (the browser's by default; all-day events take dates, the last day inclusive
// here and sent as the day after, as the API wants), a repeat preset that writes an RRULE (a custom rule from a
// tool is kept), location, description and whether it is public. The server checks everything; its error names the field.
import { useState, type FormEvent } from 'react';
import { Button, Card, Field, SaveOutcome, apiFetch } from '@quad/web/sdk';
import {
  PRESETS, browserZone, errorField, localValue, nextDay, presetOf, useCalendarBase, useRefresh, zonedIso, zoneNames,
  type CalendarEvent, type PresetId,
} from './common.js';

const row = { display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-start' } as const;

function initial(event: CalendarEvent | null) {
  const zone = event?.time_zone ?? browserZone();
  if (!event) {
    const start = new Date(Date.now() + 86_400_000);
    start.setMinutes(0, 0, 0);
    const local = localValue(start.toISOString(), zone);
    return { zone, start: local, end: localValue(new Date(start.getTime() + 3_600_000).toISOString(), zone), ...presetOf(null) };
  }
  if (event.all_day && event.dates) return { zone, start: event.dates.first, end: event.dates.last, ...presetOf(event.recurrence) };
  return { zone, start: localValue(event.start_at, zone), end: localValue(event.end_at, zone), ...presetOf(event.recurrence) };
}

export function EventForm({ event, onDone }: { event: CalendarEvent | null; onDone: () => void }) {
  const base = useCalendarBase();
  const refresh = useRefresh();
  const first = initial(event);
  const [title, setTitle] = useState(event?.title ?? '');
  const [zone, setZone] = useState(first.zone);
  const [allDay, setAllDay] = useState(event?.all_day ?? false);
  const [start, setStart] = useState(first.start);
  const [end, setEnd] = useState(first.end);
  const [preset, setPreset] = useState<PresetId>(first.preset);
  const [count, setCount] = useState(first.count);
  const [location, setLocation] = useState(event?.location ?? '');
  const [description, setDescription] = useState(event?.description ?? '');
  const [isPublic, setPublic] = useState(event?.public ?? true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const invalid = (field: string) => (errorField(error) === field ? true : undefined);

  function switchAllDay(on: boolean) {
    setAllDay(on);
    // Keep the dates, drop or add the time of day.
    setStart(on ? start.slice(0, 10) : `${start.slice(0, 10)}T18:00`);
    setEnd(on ? end.slice(0, 10) : `${end.slice(0, 10)}T19:00`);
  }

  function recurrence(): string | null | undefined {
    if (preset === 'custom') return undefined; // kept as it is
    const rule = PRESETS.find((p) => p.id === preset)!.rule;
    return rule && count.trim() ? `${rule};COUNT=${Number(count)}` : rule;
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true); setError(null); setSaved(null);
    try {
      const body = {
        title, time_zone: zone, all_day: allDay, location, description, public: isPublic,
        start_at: allDay ? start : zonedIso(start, zone),
        end_at: allDay ? nextDay(end) : zonedIso(end, zone),
        ...(recurrence() !== undefined && { recurrence: recurrence() }),
      };
      if (event) await apiFetch(`${base}/events/${event.id}`, { method: 'PUT', body });
      else await apiFetch(`${base}/events`, { method: 'POST', body });
      await refresh();
      if (event) {
        onDone();
      } else {
        setSaved(`Added ${title.trim()}.`);
        setTitle(''); setLocation(''); setDescription(''); setPreset('none'); setCount('');
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const heading = event ? `Edit ${event.title}` : 'Add an event';
  return (
    <Card title={heading}>
      <form onSubmit={submit} aria-label={heading}>
        <Field label="Title" value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={200} aria-invalid={invalid('title')} />
        <p><label className="q-switch">
          <input type="checkbox" checked={allDay} onChange={(e) => switchAllDay(e.target.checked)} /> All day
        </label></p>
        <div style={row}>
          <Field label="Starts" type={allDay ? 'date' : 'datetime-local'} value={start} required onChange={(e) => setStart(e.target.value)} aria-invalid={invalid('start_at')} />
          <Field label={allDay ? 'Last day' : 'Ends'} type={allDay ? 'date' : 'datetime-local'} value={end} required onChange={(e) => setEnd(e.target.value)}
            aria-invalid={invalid('end_at')} hint="At most 14 days after the start" />
          <Field as="select" label="Time zone" value={zone} onChange={(e) => setZone(e.target.value)} aria-invalid={invalid('time_zone')}>
            {zoneNames(zone).map((z) => <option key={z} value={z}>{z}</option>)}
          </Field>
        </div>
        <div style={row}>
          <Field as="select" label="Repeats" value={preset} onChange={(e) => setPreset(e.target.value as PresetId)} aria-invalid={invalid('recurrence')}>
            {PRESETS.map((p) => <option key={p.id} value={p.id}>{p.label}</option>)}
            {preset === 'custom' && <option value="custom">Custom: {event?.recurrence}</option>}
          </Field>
          {preset !== 'none' && preset !== 'custom' && (
            <Field label="Times (blank: no end)" type="number" min={1} max={1000} step={1} value={count} onChange={(e) => setCount(e.target.value)} />
          )}
        </div>
        <Field label="Location" value={location} onChange={(e) => setLocation(e.target.value)} maxLength={500} />
        <Field as="textarea" label="Description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={5000} rows={3} />
        <p><label className="q-switch">
          <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} /> Public (in the public listing and the feed)
        </label></p>
        <span style={{ display: 'inline-flex', gap: 8 }}>
          <Button type="submit" variant="primary" disabled={busy}>{event ? 'Save' : 'Add event'}</Button>
          {event && <Button onClick={onDone}>Cancel</Button>}
        </span>
      </form>
      <SaveOutcome error={error} saved={saved} failedTitle={event ? 'Not saved' : 'Not added'} />
    </Card>
  );
}
