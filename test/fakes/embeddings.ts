// Fake OpenAI-compatible embeddings service for tests: a real HTTP server on OUTSIDE_HOST (127.0.0.2, random port) answering
// POST /v1/embeddings {model, input} with deterministic, meaningful vectors: a normalised 1024-d bag of words (each
// lowercased word adds to a few fixed dimensions chosen by a stable hash), so texts sharing words are near in
// cosine distance and rankings can be asserted. Answers list the vectors in reverse order (clients must sort by
// `index`). It records every request and can be made to fail. Test code, not production code.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OUTSIDE_HOST } from './outside.js';

export const FAKE_DIMENSIONS = 1024;
/** Dimensions each word adds to. */
const DIMS_PER_WORD = 3;

export interface RecordedEmbeddingsRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The bearer key sent, or null. */
  key: string | null;
  model: unknown;
  /** The texts of the request (a single string input is recorded as one text). */
  input: string[];
}

export interface FakeEmbeddingsOptions {
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. Default: any key or none is accepted. */
  apiKey?: string;
  /** Length of the vectors answered (to test a wrong-dimension model). Default: 1024. */
  dimensions?: number;
}

export interface FakeEmbeddings {
  /** http://127.0.0.2:PORT/v1 (OUTSIDE_HOST) — use as EMBEDDINGS_URL, or as an org's URL with allowOutside(t). */
  readonly url: string;
  readonly requests: RecordedEmbeddingsRequest[];
  /** The next `count` requests fail: answered with `status` (and an OpenAI-style error), or never answered. */
  failNext(failure: number | 'timeout', count?: number): void;
  /** Answer this exact input text (prefix included) with this vector instead of the bag of words. */
  setVectorFor(text: string, vector: number[]): void;
  close(): Promise<void>;
}

/** The fake's vector for a text: the same function the server uses, for expectations in tests. */
export function fakeEmbedding(text: string, dimensions = FAKE_DIMENSIONS): number[] {
  const v = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    for (let k = 0; k < DIMS_PER_WORD; k++) v[fnv1a(`${word}#${k}`) % dimensions] += 1;
  }
  if (!words.length) v[0] = 1; // no words: a fixed unit vector (a zero vector has no cosine distance)
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** Cosine similarity of two vectors. */
export function cosine(a: number[], b: number[]): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return dot / Math.sqrt(na * nb);
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export async function startFakeEmbeddings(t: { teardown(fn: () => unknown): void }, options: FakeEmbeddingsOptions = {}): Promise<FakeEmbeddings> {
  const requests: RecordedEmbeddingsRequest[] = [];
  const failures: (number | 'timeout')[] = [];
  const fixed = new Map<string, number[]>();
  const held: ServerResponse[] = [];
  const dimensions = options.dimensions ?? FAKE_DIMENSIONS;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
      let body: { model?: unknown; input?: unknown } = {};
      try { body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'); } catch { /* answered 400 below */ }
      const input = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input.map(String) : [];
      requests.push({ method: req.method ?? 'POST', path, headers: req.headers, key, model: body.model, input });
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      const error = (status: number, message: string, type: string) => send(status, { error: { message, type, param: null, code: null } });

      const failure = failures.shift();
      if (failure === 'timeout') { held.push(res); return; }
      if (failure !== undefined) return error(failure, `fake failure ${failure}`, failure >= 500 ? 'server_error' : 'invalid_request_error');
      if (req.method !== 'POST' || path !== '/v1/embeddings') return error(404, `Unknown route ${req.method} ${path}`, 'invalid_request_error');
      if (options.apiKey !== undefined && key !== options.apiKey) return error(401, 'Incorrect API key provided.', 'invalid_request_error');
      if (!Array.isArray(body.input) && typeof body.input !== 'string') return error(400, "'input' is required", 'invalid_request_error');
      if (typeof body.model !== 'string' || !body.model) return error(400, "'model' is required", 'invalid_request_error');
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: fixed.get(text) ?? fakeEmbedding(text, dimensions) }));
      const tokens = input.reduce((n, text) => n + (text.match(/\S+/g)?.length ?? 0), 0);
      send(200, { object: 'list', data: data.reverse(), model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, OUTSIDE_HOST, resolve));
  const url = `http://${OUTSIDE_HOST}:${(server.address() as AddressInfo).port}/v1`;

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  t.teardown(close);

  return {
    url, requests,
    failNext(failure, count = 1) {
      for (let i = 0; i < count; i++) failures.push(failure);
    },
    setVectorFor(text, vector) {
      fixed.set(text, vector);
    },
    close,
  };
}
