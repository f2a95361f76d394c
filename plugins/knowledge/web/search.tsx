// The Test search tab (POST /search, routes/preview.ts): a query and optionally a mode, a category and top_k; the
// fused results with their scores beside the vector list with distances and the text list.
import { useState, type FormEvent } from 'react';
import { Button, Card, ErrorNote, Field, Table, useApiMutation, useOrg } from '@quad/web/sdk';
import { MODES, row } from './common.js';

interface Result { chunk_id: number; source_key: string; title: string; category: string; content: string; score: number }
interface Hit { chunk_id: number; rank: number; source_key: string; ordinal: number; distance?: number }
interface Preview { results: Result[]; dense: boolean; mode: string; vector: Hit[]; text: Hit[] }

/** Try a query: the results in fused order, and the vector and text lists the fusion merged. */
export function SearchCard() {
  const org = useOrg();
  const run = useApiMutation<{ query: string; mode?: string; category?: string; top_k?: number }, Preview>('POST', `/api/dashboard/${org.prefix}/knowledge/search`);
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState('');
  const [category, setCategory] = useState('');
  const [topK, setTopK] = useState('');
  function submit(e: FormEvent) {
    e.preventDefault();
    run.mutate({ query: query.trim(), ...(mode && { mode }), ...(category.trim() && { category: category.trim() }), ...(topK && { top_k: Number(topK) }) });
  }
  const answer = run.data;
  const name = (h: { source_key: string; ordinal: number }) => `${h.source_key} #${h.ordinal}`;

  return (
    <Card title="Test search">
      <form aria-label="Test search" onSubmit={submit}>
        <div style={row}>
          <Field label="Query" value={query} onChange={(e) => setQuery(e.target.value)} maxLength={2000} required />
          <Field as="select" label="Mode" value={mode} onChange={(e) => setMode(e.target.value)}>
            <option value="">The org's setting</option>
            {MODES.map((m) => <option key={m} value={m}>{m}</option>)}
          </Field>
          <Field label="Category" value={category} onChange={(e) => setCategory(e.target.value)} maxLength={200} hint="Empty: every category" />
          <Field label="Results" type="number" min={1} max={50} step={1} value={topK} onChange={(e) => setTopK(e.target.value)} hint="1–50; empty: the org's setting" />
        </div>
        <Button type="submit" variant="primary" disabled={run.isPending || !query.trim()}>Search</Button>
      </form>
      {run.error && <ErrorNote error={run.error} title="Search failed" />}
      {answer && (
        <>
          <p role="status">Mode {answer.mode}; {answer.dense ? 'the vector search ran' : 'text only (no vector search)'}; {answer.results.length} result{answer.results.length === 1 ? '' : 's'}.</p>
          <Table caption="Fused results" showCaption rows={answer.results} rowKey={(r) => r.chunk_id} columns={[
            { header: '#', numeric: true, cell: (r) => answer.results.indexOf(r) + 1 },
            { header: 'Source', cell: (r) => <code>{r.source_key}</code> },
            { header: 'Passage', cell: (r) => r.content.length > 160 ? `${r.content.slice(0, 160)}…` : r.content },
            { header: 'Score', numeric: true, cell: (r) => r.score.toFixed(5) },
          ]} />
          <Table caption="Vector list" showCaption rows={answer.vector} rowKey={(h) => h.chunk_id} columns={[
            { header: 'Rank', numeric: true, cell: 'rank' },
            { header: 'Passage', cell: name },
            { header: 'Distance', numeric: true, cell: (h) => h.distance!.toFixed(4) },
          ]} />
          {answer.vector.length === 0 && <p>No vector results.</p>}
          <Table caption="Text list" showCaption rows={answer.text} rowKey={(h) => h.chunk_id} columns={[
            { header: 'Rank', numeric: true, cell: 'rank' },
            { header: 'Passage', cell: name },
          ]} />
          {answer.text.length === 0 && <p>No text results.</p>}
        </>
      )}
    </Card>
  );
}
