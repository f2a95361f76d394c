// The points module's dashboard page (/dashboard/points) and Overview card, built into web/dist/index.js and loaded
// by the dashboard at run time. React, @tanstack/react-query and @quad/web/sdk are the dashboard's own (its import
// map). Routes: plugins/points/routes.ts (README "Routes", "Check-in sheets").
import { useState, type CSSProperties, type FormEvent } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import {
  ApiError, Button, Card, ConfirmDialog, EmptyState, ErrorNote, Field, Loading, OverviewSection, Page, Table,
  apiFetch, apiKey, invalidateApi, useApi, useOrg, type PageProps,
} from '@quad/web/sdk';

interface Member {
  user_id: number; chat_user_id: string | null; username: string | null; email: string | null; student_id: string | null;
  balance: number; earned: number; spent: number; last_activity_at: string | null;
}
interface MembersAnswer { members: Member[]; page: number; per_page: number; total: number }
interface EventRow { name: string; entries: number; members: number; points: number; first_at: string; last_at: string }
interface CheckinAnswer { event: string; awarded: number; points: number; skipped: { row: number; reason: string }[] }
interface CsvProblem { row: number; column?: string; message: string }

const PER_PAGE = 100;
const row: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-start' };
const ok: CSSProperties = { color: 'var(--ok)' };

/** How the page names a member: their username, email or chat user id, as this org knows them. */
const nameOf = (m: Pick<Member, 'username' | 'email' | 'chat_user_id' | 'user_id'>) =>
  m.username ?? m.email ?? m.chat_user_id ?? `Member ${m.user_id}`;

/** After any change: the members, events and the Overview counts are read again. */
const refresh = (prefix: string) => Promise.all([invalidateApi(`/api/points/${prefix}/`), invalidateApi(`/api/dashboard/${prefix}/overview`)]);

/** The page at /dashboard/points (manifest pages.list[0].component). */
export function PointsPage(_props: PageProps) {
  return (
    <Page title="Points">
      <div className="q-card-grid" style={{ marginBottom: 16 }}>
        <AwardCard />
        <CheckinCard />
      </div>
      <MembersCard />
      <EventsCard />
    </Page>
  );
}

type Kind = 'email' | 'username' | 'chat_user_id';
const KINDS: { id: Kind; label: string; placeholder: string; type: string }[] = [
  { id: 'email', label: 'Email', placeholder: 'ada@example.org', type: 'email' },
  { id: 'username', label: 'Discord username', placeholder: 'ada', type: 'text' },
  { id: 'chat_user_id', label: 'Discord user id', placeholder: '123456789012345678', type: 'text' },
];

/** Award (or, with a negative amount, take) points to one member. */
function AwardCard() {
  const org = useOrg();
  const [kind, setKind] = useState<Kind>('email');
  const [who, setWho] = useState('');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const current = KINDS.find((k) => k.id === kind)!;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true); setError(null); setDone(null);
    try {
      const points = Number(amount);
      const answer = await apiFetch<{ member: Member; balance: number }>(`/api/points/${org.prefix}/awards`, {
        method: 'POST', body: { [kind]: who.trim(), amount: points, ...(reason.trim() && { reason: reason.trim() }) },
      });
      setDone(`${points > 0 ? 'Awarded' : 'Took'} ${Math.abs(points)} points ${points > 0 ? 'to' : 'from'} ${nameOf(answer.member)}. Balance: ${answer.balance}.`);
      setWho(''); setAmount(''); setReason('');
      await refresh(org.prefix);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title="Award points">
      <form onSubmit={submit} aria-label="Award points">
        <div style={row}>
          <Field as="select" label="Find the member by" value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            {KINDS.map((k) => <option key={k.id} value={k.id}>{k.label}</option>)}
          </Field>
          <Field label={current.label} type={current.type} value={who} onChange={(e) => setWho(e.target.value)} placeholder={current.placeholder} required />
        </div>
        <div style={row}>
          <Field label="Points" type="number" inputMode="numeric" step={1} min={-100000} max={100000} value={amount}
            onChange={(e) => setAmount(e.target.value)} hint="Negative to take points back" required />
          <Field label="Reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} placeholder="Helped at the workshop" />
        </div>
        <Button type="submit" variant="primary" disabled={busy || !who.trim() || !amount || Number(amount) === 0}>Award</Button>
      </form>
      {error !== null && <ErrorNote error={error} title="Points not awarded" />}
      {done && <p role="status" style={ok}>{done}</p>}
    </Card>
  );
}

/** Upload an event's check-in sheet: everyone on it gets the event's points once. */
function CheckinCard() {
  const org = useOrg();
  const [event, setEvent] = useState('');
  const [points, setPoints] = useState('10');
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<CheckinAnswer | null>(null);
  const problems = error instanceof ApiError && Array.isArray(error.body?.errors) ? error.body.errors as CsvProblem[] : [];

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!file) return;
    setBusy(true); setError(null); setDone(null);
    try {
      const csv = await file.text();
      const answer = await apiFetch<CheckinAnswer>(`/api/points/${org.prefix}/checkins`, {
        method: 'POST', body: { event: event.trim(), points: Number(points), csv },
      });
      setDone(answer);
      setFile(null); setInputKey((k) => k + 1);
      await refresh(org.prefix);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title="Event check-ins">
      <form onSubmit={submit} aria-label="Upload check-ins">
        <div style={row}>
          <Field label="Event" value={event} onChange={(e) => setEvent(e.target.value)} maxLength={200} placeholder="Fall hack night" required />
          <Field label="Points per check-in" type="number" min={1} max={100000} step={1} value={points} onChange={(e) => setPoints(e.target.value)} required />
        </div>
        <Field key={inputKey} label="Check-in sheet (CSV)" type="file" accept=".csv,text/csv"
          hint="First line names the columns: email or chat_user_id, and optionally student_id and points"
          onChange={(e) => setFile(e.target.files?.[0] ?? null)} required />
        <Button type="submit" variant="primary" disabled={busy || !file || !event.trim()}>Upload</Button>
      </form>
      {error !== null && <ErrorNote error={error} title="Nothing was imported" />}
      {problems.length > 0 && (
        <ul aria-label="Problems in the sheet">
          {problems.map((p, i) => <li key={i}>Row {p.row}{p.column ? ` (${p.column})` : ''}: {p.message}</li>)}
        </ul>
      )}
      {done && (
        <div role="status">
          <p style={ok}>Imported {done.awarded} check-in{done.awarded === 1 ? '' : 's'} to {done.event} ({done.points} points).</p>
          {done.skipped.length > 0 && (
            <ul aria-label="Skipped rows">{done.skipped.map((s) => <li key={s.row}>Row {s.row}: {s.reason}</li>)}</ul>
          )}
        </div>
      )}
    </Card>
  );
}

/** The org's members with their balances, 100 at a time (the API's pages). */
function MembersCard() {
  const org = useOrg();
  const [search, setSearch] = useState('');
  const q = search.trim();
  const path = `/api/points/${org.prefix}/members?sort=balance&per_page=${PER_PAGE}${q ? `&q=${encodeURIComponent(q)}` : ''}`;
  const members = useInfiniteQuery({
    queryKey: [...apiKey(path), 'pages'],
    initialPageParam: 1,
    queryFn: ({ pageParam, signal }) => apiFetch<MembersAnswer>(`${path}&page=${pageParam}`, { signal }),
    getNextPageParam: (last) => (last.page * last.per_page < last.total ? last.page + 1 : undefined),
  });
  const rows = members.data?.pages.flatMap((p) => p.members) ?? [];
  const total = members.data?.pages[0]?.total ?? 0;
  return (
    <Card title="Members">
      <Field label="Search members" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Name, email or id" />
      {members.isPending ? <Loading /> : members.error ? <ErrorNote error={members.error} /> : rows.length === 0
        ? <EmptyState title={q ? 'No member matches' : 'No members with points yet'}>Award points or upload a check-in sheet.</EmptyState>
        : (
          <>
            <Table caption="Members" rows={rows} rowKey={(m) => m.user_id} columns={[
              { header: 'Discord', cell: (m) => m.username ?? m.chat_user_id ?? '' },
              { header: 'Email', cell: (m) => m.email ?? '' },
              { header: 'Student id', cell: (m) => m.student_id ?? '' },
              { header: 'Balance', cell: 'balance', numeric: true },
              { header: 'Earned', cell: 'earned', numeric: true },
              { header: 'Spent', cell: 'spent', numeric: true },
              { header: 'Last activity', cell: (m) => (m.last_activity_at ? new Date(m.last_activity_at).toLocaleString() : '') },
            ]} />
            {members.hasNextPage && (
              <div className="q-show-more">
                <Button onClick={() => members.fetchNextPage()} disabled={members.isFetchingNextPage}>
                  Show more ({total - rows.length} left)
                </Button>
              </div>
            )}
          </>
        )}
    </Card>
  );
}

/** Events (rows with an event name) grouped by name; deleting one removes every row of it. */
function EventsCard() {
  const org = useOrg();
  const events = useApi<{ events: EventRow[] }>(`/api/points/${org.prefix}/events`);
  const [shown, setShown] = useState(PER_PAGE);
  const [asking, setAsking] = useState<EventRow | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function remove(event: EventRow) {
    setBusy(true); setError(null);
    try {
      await apiFetch(`/api/points/${org.prefix}/events/${encodeURIComponent(event.name)}`, { method: 'DELETE' });
      setAsking(null);
      await refresh(org.prefix);
    } catch (err) {
      setAsking(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const list = events.data?.events ?? [];
  return (
    <Card title="Events">
      {error !== null && <ErrorNote error={error} title="The event was not deleted" />}
      {events.isPending ? <Loading /> : events.error ? <ErrorNote error={events.error} /> : list.length === 0
        ? <EmptyState title="No events yet">Upload a check-in sheet, or name an event when awarding points.</EmptyState>
        : (
          <>
            <Table caption="Events" rows={list.slice(0, shown)} rowKey={(e) => e.name} columns={[
              { header: 'Event', cell: 'name' },
              { header: 'Entries', cell: 'entries', numeric: true },
              { header: 'Members', cell: 'members', numeric: true },
              { header: 'Points', cell: 'points', numeric: true },
              { header: 'Last entry', cell: (e) => new Date(e.last_at).toLocaleString() },
              { header: <span className="q-visually-hidden">Actions</span>, cell: (e) => <Button variant="danger" onClick={() => setAsking(e)} aria-label={`Delete ${e.name}`}>Delete</Button> },
            ]} />
            {list.length > shown && (
              <div className="q-show-more"><Button onClick={() => setShown((n) => n + PER_PAGE)}>Show more ({list.length - shown} left)</Button></div>
            )}
          </>
        )}
      <ConfirmDialog open={asking !== null} title={`Delete ${asking?.name ?? 'the event'}?`} confirmLabel="Delete event" danger busy={busy}
        onConfirm={() => asking && remove(asking)} onCancel={() => setAsking(null)}>
        {asking && <p>All {asking.entries} entries of this event are deleted, and their {asking.points} points leave the members' balances.</p>}
      </ConfirmDialog>
    </Card>
  );
}

/** The module's card on Overview: members and the points awarded in the last 7 days. */
export function PointsCard() {
  return (
    <OverviewSection module="points" what="Points counts">
      {(points) => (
        <p data-testid="points-card">
          {Number(points.members)} member{points.members === 1 ? '' : 's'} with points; {Number(points.points_awarded_7d)} points awarded this week.
        </p>
      )}
    </OverviewSection>
  );
}
