// The Sources tab: the org's sources grouped by domain (100 rows, then Show more), where each came from (a client,
// a crawl, an upload) and its crawl's last error; Delete asks first; Read opens a source a page at a time.
import { useState } from 'react';
import { Button, Card, ConfirmDialog, EmptyState, ErrorNote, Loading, ShowMore, Table, useApi, useApiMutation } from '@quad/web/sdk';
import { actions, bad, keyPath, useKnowledgeBase, when, type Source, type SourceList } from './common.js';

interface ReadPage {
  source: Source & { own: boolean; text_chars: number };
  passages: { id: number; ordinal: number; text: string }[];
  offset: number; next_offset: number | null; total: number;
}

const ORIGINS: Record<Source['origin'], string> = { api: 'client', crawl: 'crawl', upload: 'upload' };

/** A source's domain: its key before the first `/` (spec "Knowledge source"). */
const domainOf = (key: string) => key.split('/')[0]!;

/** The org's sources, grouped by domain: 100 rows, then Show more. */
export function SourcesCard({ onRead, onDeleted }: { onRead: (key: string) => void; onDeleted: (key: string) => void }) {
  const base = useKnowledgeBase();
  const list = useApi<SourceList>(`${base}/sources`);
  const [deleting, setDeleting] = useState<string | null>(null);
  const remove = useApiMutation('DELETE', `${base}/sources/${keyPath(deleting ?? '')}`, { invalidate: [`${base}/sources`] });
  // By domain, then key, so a page of 100 rows holds whole groups where it can.
  const sorted = [...(list.data?.sources ?? [])].sort((a, b) => domainOf(a.key).localeCompare(domainOf(b.key)) || a.key.localeCompare(b.key));

  return (
    <Card title="Sources">
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} title="Sources not loaded" />
        : sorted.length === 0 ? <EmptyState title="No sources yet">Add a crawl or upload documents here; clients write sources through the knowledge API (PUT /api/knowledge/sources/&lt;key&gt;).</EmptyState>
          : (
            <ShowMore items={sorted}>
              {(shown) => groups(shown).map(([domain, sources]) => (
                <div key={domain} style={{ marginBottom: 16 }}>
                  <Table caption={domain} showCaption rows={sources} rowKey={(s) => s.key} columns={[
                    { header: 'Title', cell: (s) => s.title || '(untitled)' },
                    { header: 'Key', cell: (s) => <code>{s.key}</code> },
                    { header: 'Category', cell: 'category' },
                    { header: 'Origin', cell: origin },
                    { header: 'Public', cell: (s) => (s.public ? 'Yes' : 'No') },
                    { header: 'Passages', numeric: true, cell: (s) => s.current_version?.chunks ?? 0 },
                    { header: 'Model', cell: (s) => s.current_version?.embedding_model ?? 'text only' },
                    { header: 'Updated', cell: (s) => when(s.updated_at) },
                    {
                      header: 'Actions', cell: (s) => (
                        <div style={actions}>
                          <Button onClick={() => onRead(s.key)} aria-label={`Read ${s.key}`}>Read</Button>
                          <Button variant="danger" onClick={() => { remove.reset(); setDeleting(s.key); }} aria-label={`Delete ${s.key}`}>Delete</Button>
                        </div>
                      ),
                    },
                  ]} />
                </div>
              ))}
            </ShowMore>
          )}
      <ConfirmDialog open={deleting !== null} title={`Delete ${deleting ?? ''}?`} confirmLabel="Delete source" danger busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => remove.mutate(undefined, { onSuccess: () => { onDeleted(deleting!); setDeleting(null); } })}>
        <p>The source, its versions and all its passages are deleted. Agents no longer find them.</p>
        {remove.error && <ErrorNote error={remove.error} title="Not deleted" />}
      </ConfirmDialog>
    </Card>
  );
}

/** Where the source came from; a crawl's last error under it (the passages of the last good crawl stay searchable). */
function origin(s: Source) {
  const error = s.crawl?.last_error;
  return (
    <>
      {ORIGINS[s.origin]}
      {error && <div style={{ ...bad, fontSize: 13 }}>Last crawl failed: {error}</div>}
    </>
  );
}

function groups(sources: readonly Source[]): [string, Source[]][] {
  const out = new Map<string, Source[]>();
  for (const s of sources) out.set(domainOf(s.key), [...(out.get(domainOf(s.key)) ?? []), s]);
  return [...out.entries()];
}

/** One source's text, a page at a time. */
export function ReaderCard({ sourceKey, onClose }: { sourceKey: string; onClose: () => void }) {
  const base = useKnowledgeBase();
  const [offset, setOffset] = useState(0);
  const page = useApi<ReadPage>(`${base}/sources/${keyPath(sourceKey)}?offset=${offset}`);
  const data = page.data;
  return (
    <Card title={`Reading ${sourceKey}`} actions={<Button onClick={onClose}>Close</Button>}>
      {page.isPending ? <Loading /> : page.error ? <ErrorNote error={page.error} title="Source not read" /> : data && (
        <section aria-label="Reader">
          <p role="status">
            {data.source.title || sourceKey} · passages {data.total === 0 ? 0 : data.offset + 1}–{data.offset + data.passages.length} of {data.total} · {data.source.text_chars} characters
          </p>
          {/* A page may hold 500 passages: it scrolls in its own box, so the paging buttons stay near. */}
          <div style={{ maxHeight: '60vh', overflowY: 'auto' }} tabIndex={0}>
            <ol start={data.offset + 1} aria-label="Passages">
              {data.passages.map((p) => <li key={p.id} style={{ whiteSpace: 'pre-wrap', marginBottom: 8 }}>{p.text}</li>)}
            </ol>
          </div>
          <div style={{ display: 'flex', gap: 8 }}>
            <Button disabled={data.offset === 0} onClick={() => setOffset(0)}>First page</Button>
            <Button disabled={data.next_offset === null} onClick={() => data.next_offset !== null && setOffset(data.next_offset)}>Next page</Button>
          </div>
        </section>
      )}
    </Card>
  );
}
