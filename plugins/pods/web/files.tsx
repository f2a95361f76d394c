// A running pod's files (the file routes, over SFTP as root): a folder's entries, folders first; open a folder, read a
// text file (up to 1 MB), delete after a confirm. A stopped pod has no SSH, so the panel says so instead of asking.
import { useState, type FormEvent } from 'react';
import { Button, Card, EmptyState, ErrorNote, Field, Loading, useApi } from '@quad/web/sdk';
import { actions, beside, isRunning, podPath, row, usePodsBase, type Pod } from './common.js';
import { FolderTable, type Listing } from './folder-table.js';
import { FileViewer } from './file-viewer.js';

const parentOf = (path: string) => path.replace(/\/[^/]*$/, '') || '/';

export function FilesPanel({ pod }: { pod: Pod }) {
  if (!isRunning(pod)) {
    return <Card title="Files"><EmptyState title="The pod is not running">Start it to browse its files (it is {pod.status} now).</EmptyState></Card>;
  }
  return <FileBrowser pod={pod} />;
}

function FileBrowser({ pod }: { pod: Pod }) {
  const files = `${podPath(usePodsBase(), pod.pod_id)}/files`;
  const [folder, setFolder] = useState(pod.volume_mount_path ?? '/');
  const [reading, setReading] = useState<string | null>(null);
  const listing = useApi<Listing>(`${files}?path=${encodeURIComponent(folder)}`);
  const open = (path: string) => { setFolder(path); setReading(null); };

  return (
    <Card title="Files">
      {/* Keyed by the folder: opening one from the table puts its path in the box. */}
      <FolderBar key={folder} folder={folder} onOpen={open} />
      {listing.isPending ? <Loading /> : listing.error ? <ErrorNote error={listing.error} title={`${folder} not listed`} /> : (
        <FolderTable files={files} listing={listing.data} onOpen={open} onRead={setReading}
          onDeleted={(path) => setReading((r) => (r === path ? null : r))} />
      )}
      {reading && <FileViewer key={reading} files={files} path={reading} onClose={() => setReading(null)} />}
    </Card>
  );
}

/** The folder shown, a box to open any other, and a way up. */
function FolderBar({ folder, onOpen }: { folder: string; onOpen: (path: string) => void }) {
  const [draft, setDraft] = useState(folder);
  const go = (e: FormEvent) => {
    e.preventDefault();
    if (draft.trim()) onOpen(draft.trim());
  };
  return (
    <form onSubmit={go} aria-label="Open a folder" style={row}>
      <Field label="Folder" value={draft} onChange={(e) => setDraft(e.target.value)} required placeholder="/workspace" hint="An absolute path on the pod"
        style={{ minWidth: 480 }} />
      <span style={{ ...actions, ...beside }}>
        <Button type="submit">Open</Button>
        <Button onClick={() => onOpen(parentOf(folder))} disabled={folder === '/'}>Up</Button>
      </span>
    </form>
  );
}
