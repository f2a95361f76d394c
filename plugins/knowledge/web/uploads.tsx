// The Upload tab (README "Uploads", POST /documents): files into the sources <folder>/<file name>, the server's caps
// checked before sending (a refused request stores nothing), then each file's result: its key, passages,
// unchanged, or its own error (a failing file does not stop the others).
import { useState, type FormEvent } from 'react';
import { Button, Card, ErrorNote, Field, Table, useApi, useApiMutation } from '@quad/web/sdk';
import { bad, plural, useKnowledgeBase, type SourceList } from './common.js';

interface FileResult { name: string; key: string | null; passages: number; changed: boolean; error: string | null }

const ACCEPT = '.txt,.md,.markdown,.csv,.html,.htm,.pdf,.docx';
const MB = 1024 * 1024;
/** routes/documents.ts's caps. */
export const MAX_FILES = 20;
export const MAX_FILE_BYTES = 10 * MB;
export const MAX_UPLOAD_BYTES = 25 * MB;

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

/** Why these files would be refused whole, or null. */
export function capProblem(files: readonly File[]): string | null {
  if (files.length === 0) return `Choose 1 to ${MAX_FILES} files.`;
  if (files.length > MAX_FILES) return `At most ${MAX_FILES} files in one upload; ${files.length} are chosen.`;
  const big = files.find((f) => f.size > MAX_FILE_BYTES);
  if (big) return `${big.name} is ${mb(big.size)}; a file may be at most 10 MB.`;
  const total = files.reduce((sum, f) => sum + f.size, 0);
  if (total > MAX_UPLOAD_BYTES) return `The files come to ${mb(total)} together; at most 25 MB in one upload: upload them in smaller groups.`;
  return null;
}

export function UploadCard() {
  const base = useKnowledgeBase();
  const mayPublish = useApi<SourceList>(`${base}/sources`).data?.may_publish ?? false;
  const upload = useApiMutation<FormData, { files: FileResult[] }>('POST', `${base}/documents`, { invalidate: [`${base}/sources`, `${base}/runs`] });
  const [files, setFiles] = useState<File[]>([]);
  const [folder, setFolder] = useState('');
  const [category, setCategory] = useState('');
  const [isPublic, setPublic] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  // A new key empties the file input (it cannot be set) after an upload.
  const [picker, setPicker] = useState(0);

  function choose(list: FileList | null) {
    const chosen = [...(list ?? [])];
    setFiles(chosen);
    setProblem(chosen.length ? capProblem(chosen) : null);
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    const found = capProblem(files);
    setProblem(found);
    if (found) return;
    const form = new FormData();
    if (folder.trim()) form.append('folder', folder.trim());
    if (category.trim()) form.append('category', category.trim());
    if (mayPublish) form.append('public', String(isPublic));
    for (const file of files) form.append('files', file, file.name);
    upload.mutate(form, { onSuccess: () => { setFiles([]); setPicker((n) => n + 1); } });
  }

  return (
    <Card title="Upload documents">
      <form onSubmit={submit} aria-label="Upload documents">
        <Field key={picker} label="Files" type="file" multiple accept={ACCEPT} onChange={(e) => choose(e.target.files)} aria-invalid={problem ? true : undefined}
          hint={`1 to ${MAX_FILES} files, 10 MB each and 25 MB together: .txt .md .csv .html .pdf .docx. Each becomes the source <folder>/<file name>; the same file again changes nothing.`} />
        <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12 }}>
          <Field label="Folder" value={folder} onChange={(e) => setFolder(e.target.value)} maxLength={200} placeholder="upload" hint="Empty: upload" />
          <Field label="Category" value={category} onChange={(e) => setCategory(e.target.value)} maxLength={200} placeholder="documents" hint="Empty: documents" />
        </div>
        {mayPublish && (
          <p><label className="q-switch"><input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} /> Public: every org's agents may find them</label></p>
        )}
        <Button type="submit" variant="primary" disabled={upload.isPending}>{upload.isPending ? 'Uploading…' : 'Upload'}</Button>
      </form>
      {problem && <ErrorNote error={problem} title="Not uploaded" />}
      {upload.error && !problem && <ErrorNote error={upload.error} title="Not uploaded" />}
      {upload.isPending && <p role="status">Uploading {plural(files.length, 'file')}…</p>}
      {upload.data && !upload.isPending && <Results files={upload.data.files} />}
    </Card>
  );
}

function Results({ files }: { files: FileResult[] }) {
  const failed = files.filter((f) => f.error).length;
  const unchanged = files.filter((f) => !f.error && !f.changed).length;
  return (
    <>
      <p role="status">Uploaded {plural(files.length, 'file')}: {files.length - failed - unchanged} stored, {unchanged} unchanged, {failed} failed.</p>
      <Table caption="Upload results" showCaption rows={files} rowKey={(f) => `${files.indexOf(f)}`} columns={[
        { header: 'File', cell: 'name' },
        { header: 'Source key', cell: (f) => (f.key ? <code>{f.key}</code> : '—') },
        { header: 'Passages', numeric: true, cell: (f) => (f.error ? '—' : f.passages) },
        { header: 'Result', cell: (f) => (f.error ? <span style={bad}>failed</span> : f.changed ? 'new version' : 'unchanged') },
        { header: 'Error', cell: (f) => (f.error ? <span style={bad}>{f.error}</span> : '') },
      ]} />
    </>
  );
}
