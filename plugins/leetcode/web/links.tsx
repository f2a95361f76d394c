// Members' linked LeetCode usernames (GET /links, 100 a page with Show more): link a member by their Discord user id
// (PUT /links/<id>), unlink one (DELETE, asks first). Members can also link themselves (README "Member routes").
import { useState, type FormEvent } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Button, Card, ConfirmDialog, EmptyState, ErrorNote, Field, Loading, Table, apiFetch, type ApiError } from '@quad/web/sdk';
import { useBase, useRefresh, when, type Link } from './common.js';

const PAGE = 100;
interface LinksPage { links: Link[]; page: number; per_page: number; total: number }

/** The links 100 at a time (keyed under the links path, so a refresh of the module's paths reloads them). */
function useLinks(path: string) {
  const query = useInfiniteQuery<LinksPage, ApiError>({
    queryKey: ['api', path, 'pages'],
    queryFn: ({ pageParam, signal }) => apiFetch<LinksPage>(`${path}?page=${pageParam as number}&per_page=${PAGE}`, { signal }),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.page * last.per_page < last.total ? last.page + 1 : undefined),
  });
  const pages = query.data?.pages ?? [];
  const links = pages.flatMap((p) => p.links);
  return { ...query, links, more: Math.max(0, (pages.at(-1)?.total ?? 0) - links.length) };
}

export function Links() {
  const base = useBase();
  const refresh = useRefresh();
  const list = useLinks(`${base}/links`);
  const [member, setMember] = useState('');
  const [username, setUsername] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  const [unlinking, setUnlinking] = useState<Link | null>(null);

  async function link(e: FormEvent) {
    e.preventDefault();
    setBusy(true); setError(null); setNote(null);
    try {
      const saved = await apiFetch<Link>(`${base}/links/${encodeURIComponent(member.trim())}`, { method: 'PUT', body: { username: username.trim() } });
      await refresh();
      setNote(`Linked ${saved.display_name ?? saved.chat_user_id} to ${saved.username}.`);
      setMember(''); setUsername('');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  async function unlink() {
    const target = unlinking!;
    setBusy(true); setError(null);
    try {
      await apiFetch(`${base}/links/${encodeURIComponent(target.chat_user_id)}`, { method: 'DELETE' });
      await refresh();
      setNote(`Unlinked ${target.username}.`);
      setUnlinking(null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const { links } = list;
  return (
    <Card title="Linked members">
      <form onSubmit={link} aria-label="Link a member" style={{ display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-end' }}>
        <Field label="Discord user ID" value={member} onChange={(e) => setMember(e.target.value)} required pattern="[0-9]{17,20}" maxLength={20} />
        <Field label="LeetCode username" value={username} onChange={(e) => setUsername(e.target.value)} required maxLength={64} />
        <Button type="submit" disabled={busy}>Link</Button>
      </form>
      {error !== null && unlinking === null && <ErrorNote error={error} title="Not linked" />}
      {note && error === null && <p role="status">{note}</p>}
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} title="Links not loaded" />
        : links.length === 0 ? <EmptyState title="No linked members">Members link their LeetCode username here or with their own Discord sign-in.</EmptyState> : (
          <>
            <Table caption="Linked members" rows={links} rowKey={(l) => l.chat_user_id} columns={[
              { header: 'Member', cell: (l) => <>{l.display_name ?? '—'}<div className="q-hint">{l.chat_user_id}</div></> },
              { header: 'LeetCode', cell: 'username' },
              { header: 'Linked', cell: (l) => when(l.linked_at) },
              { header: 'Actions', cell: (l) => <Button variant="danger" onClick={() => { setError(null); setUnlinking(l); }} aria-label={`Unlink ${l.username}`}>Unlink</Button> },
            ]} />
            {list.more > 0 && <Button onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>Show {Math.min(PAGE, list.more)} more</Button>}
          </>
        )}
      <ConfirmDialog open={unlinking !== null} title={`Unlink ${unlinking?.username ?? ''}?`} confirmLabel="Unlink" danger busy={busy}
        onCancel={() => setUnlinking(null)} onConfirm={unlink}>
        <p>Their solves are no longer checked; the solves already recorded stay.</p>
        {error !== null && <ErrorNote error={error} title="Not unlinked" />}
      </ConfirmDialog>
    </Card>
  );
}
