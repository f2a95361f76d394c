// Find a member of the org's server by the start of their username or nickname (GET /members?q=) and pick one. Not a
// <form>: it also sits inside the create form, so Enter in its box searches instead of submitting that form.
import { useState, type KeyboardEvent } from 'react';
import { Button, ErrorNote, Field, Loading, useApi } from '@quad/web/sdk';
import { actions, beside, row, usePodsBase, type Member } from './common.js';

const RESULTS = 10;

export function MemberSearch({ isChosen, onPick, busy = false }: { isChosen: (id: string) => boolean; onPick: (member: Member) => void; busy?: boolean }) {
  const base = usePodsBase();
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState<string | null>(null);
  const found = useApi<{ members: Member[]; total: number }>(query ? `${base}/members?q=${encodeURIComponent(query)}&limit=${RESULTS}` : null);
  const search = () => setQuery(draft.trim() || null);
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    search();
  };

  return (
    <div role="search" aria-label="Member search">
      <div style={row}>
        <Field label="Find a member" value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={onKey} maxLength={100}
          placeholder="username or nickname" hint="The start of a username or nickname on the org's server" />
        <Button onClick={search} disabled={!draft.trim()} style={beside}>Search</Button>
      </div>
      {query && (found.isPending ? <Loading label="Searching…" /> : found.error ? <ErrorNote error={found.error} title="Search failed" /> : (
        <SearchResults members={found.data.members} total={found.data.total} isChosen={isChosen} onPick={onPick} busy={busy} />
      ))}
    </div>
  );
}

function SearchResults({ members, total, isChosen, onPick, busy }: { members: Member[]; total: number; isChosen: (id: string) => boolean; onPick: (m: Member) => void; busy: boolean }) {
  if (members.length === 0) return <p role="status">No member found.</p>;
  return (
    <ul aria-label="Members found" style={{ listStyle: 'none', padding: 0, margin: '0 0 12px' }}>
      {members.map((m) => (
        <li key={m.id} style={{ ...actions, alignItems: 'center', padding: '4px 0' }}>
          <span>{m.name}{m.name !== m.username && <span className="q-hint"> @{m.username}</span>}</span>
          {isChosen(m.id) ? <span className="q-hint">allowed</span>
            : <Button onClick={() => onPick(m)} disabled={busy} aria-label={`Allow ${m.name}`}>Allow</Button>}
        </li>
      ))}
      {total > members.length && <li className="q-hint">{total - members.length} more: type more of the name.</li>}
    </ul>
  );
}
