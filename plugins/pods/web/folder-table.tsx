// A folder's entries on a pod: folders open, files are read, anything is deleted after a confirm (a folder with its
// contents; the server keeps /, /workspace, /root and /home and says so).
import { useState } from 'react';
import { Button, ConfirmDialog, EmptyState, ErrorNote, Table, useApiMutation } from '@quad/web/sdk';
import { plural, when } from './common.js';

export interface Entry { name: string; path: string; type: 'folder' | 'file' | 'link' | 'other'; size: number; mode: string; modified_at: string }
export interface Listing { path: string; entries: Entry[]; truncated: boolean }

const size = (e: Entry) => (e.type === 'folder' ? '' : e.size.toLocaleString('en'));

export function FolderTable({ files, listing, onOpen, onRead, onDeleted }: {
  files: string; listing: Listing; onOpen: (path: string) => void; onRead: (path: string) => void; onDeleted: (path: string) => void;
}) {
  const [deleting, setDeleting] = useState<Entry | null>(null);
  const remove = useApiMutation<{ path: string }>('POST', `${files}/delete`, { invalidate: [files] });
  const confirm = (entry: Entry) => remove.mutate({ path: entry.path }, { onSuccess: () => { onDeleted(entry.path); setDeleting(null); } });
  return (
    <>
      <p className="q-hint">{listing.path}: {plural(listing.entries.length, 'entry', 'entries')}{listing.truncated && ', the rest left out'}</p>
      {listing.entries.length === 0 ? <EmptyState title="This folder is empty" /> : (
        <Table caption={`Files in ${listing.path}`} rows={listing.entries} rowKey={(e) => e.path} columns={[
          { header: 'Name', cell: (e) => <EntryName entry={e} onOpen={onOpen} onRead={onRead} /> },
          { header: 'Type', cell: 'type' },
          { header: 'Size (bytes)', cell: size, numeric: true },
          { header: 'Mode', cell: (e) => <code>{e.mode}</code> },
          { header: 'Modified', cell: (e) => when(e.modified_at) },
          {
            header: <span className="q-visually-hidden">Actions</span>,
            cell: (e) => <Button variant="danger" onClick={() => { remove.reset(); setDeleting(e); }} aria-label={`Delete ${e.name}`}>Delete</Button>,
          },
        ]} />
      )}
      <ConfirmDialog open={deleting !== null} title={`Delete ${deleting?.name ?? ''}?`} confirmLabel="Delete" danger busy={remove.isPending}
        onCancel={() => setDeleting(null)} onConfirm={() => deleting && confirm(deleting)}>
        <p><code>{deleting?.path}</code>{deleting?.type === 'folder' ? ' and everything in it are' : ' is'} deleted from the pod. This cannot be undone.</p>
        {remove.error && <ErrorNote error={remove.error} title="Not deleted" />}
      </ConfirmDialog>
    </>
  );
}

/** A folder opens, a file is read; links (not followed) and others are only named. */
function EntryName({ entry, onOpen, onRead }: { entry: Entry; onOpen: (path: string) => void; onRead: (path: string) => void }) {
  if (entry.type === 'folder') {
    return <button type="button" className="q-link-button" onClick={() => onOpen(entry.path)} aria-label={`Open folder ${entry.name}`}>{entry.name}/</button>;
  }
  if (entry.type === 'file') {
    return <button type="button" className="q-link-button" onClick={() => onRead(entry.path)} aria-label={`Read ${entry.name}`}>{entry.name}</button>;
  }
  return <span>{entry.name}</span>;
}
