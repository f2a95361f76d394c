// A text file of a pod, read once when it opens (POST files/read: up to 1 MB of UTF-8; the server says when a file is
// larger or not text).
import { useEffect } from 'react';
import { Button, ErrorNote, Loading, useApiMutation } from '@quad/web/sdk';

interface Read { path: string; size: number; content: string }

export function FileViewer({ files, path, onClose }: { files: string; path: string; onClose: () => void }) {
  const read = useApiMutation<{ path: string }, Read>('POST', `${files}/read`);
  const { mutate } = read;
  useEffect(() => { mutate({ path }); }, [mutate, path]);
  return (
    <section aria-label={`Reading ${path}`} style={{ marginTop: 16 }}>
      <header className="q-card-header">
        <h3 className="q-card-title"><code>{path}</code>{read.data && <span className="q-hint"> · {read.data.size.toLocaleString('en')} bytes</span>}</h3>
        <Button onClick={onClose}>Close</Button>
      </header>
      {read.error ? <ErrorNote error={read.error} title="Not read" />
        : read.data ? <pre className="q-stack" style={{ maxHeight: '50vh' }} tabIndex={0}>{read.data.content}</pre> : <Loading label="Reading…" />}
    </section>
  );
}
