// The hooks of the knowledge module's integrations (Explore → Integrations; the core runs them): the connection tests
// of `embeddings` (one short text embedded with the org's URL, model and key, through the same adapter as every
// write) and `render` (one known public page rendered by the org's service), and the `embeddings` onChange that
// starts knowledge.reembed (spec document 3 "Events": it starts when the Embeddings integration is saved; a change
// of the deployment default, EMBEDDINGS_URL, starts nothing: nothing watches the settings). The org's URLs are
// fetched through the core's safe fetcher with the public-address checks (never `trusted`).
import { safeFetch, SafeFetchError, type IntegrationContext } from '@quad/core';
import { settingsOf } from './context.js';
import { RENDER_SECRETS } from './crawl/crawl-source.js';
import { createEmbedder, EMBEDDING_DIMENSIONS, EMBEDDINGS_SECRETS, keyFor } from './embeddings.js';
import { REEMBED_JOB } from './reembed.js';

/** Each request of a test: well inside the core's deadline for the whole test (20 s). */
const TEST_TIMEOUT_MS = 15_000;
/** What the embeddings test embeds. */
const TEST_TEXT = 'Quad connection test';
/**
 * What the rendering test asks the service to render: a tiny public page that is always up (IANA's example domain),
 * so the test proves the service renders pages from the internet, as crawls need.
 */
export const RENDER_TEST_PAGE = 'https://example.com/';

export async function testEmbeddings({ services, values }: IntegrationContext): Promise<string> {
  const url = values[EMBEDDINGS_SECRETS.url]!;
  const model = values[EMBEDDINGS_SECRETS.model]!;
  const embedder = createEmbedder({
    url, model, apiKey: keyFor(url, values[EMBEDDINGS_SECRETS.apiKey], settingsOf(services)),
    queryPrefix: values[EMBEDDINGS_SECRETS.queryPrefix], timeoutMs: TEST_TIMEOUT_MS,
  });
  // EmbedderFailed says what to fix ("401 from the embeddings service at host: check the key"); the core shows it.
  await embedder.embed([TEST_TEXT], 'passage');
  return `The embeddings service at ${hostOf(url)} embedded a test text with model "${model}" (${EMBEDDING_DIMENSIONS} numbers)`;
}

/**
 * knowledge.reembed for the org after its embeddings fields changed (saved or cleared: either changes which model
 * embeds its passages). In the save's transaction, so a save that fails starts nothing. When one is already queued
 * or running nothing more starts (a queued run reads the new fields when it runs). Not counted against
 * knowledge.jobs_per_day: that limit counts the re-embeds an officer or a token asks for, and a save is never
 * refused for it; what the run embeds is metered by knowledge.embeddings_per_day. Without pgvector there is nothing
 * to re-embed.
 */
export async function onEmbeddingsChange({ em, orgId, services }: IntegrationContext): Promise<void> {
  if (services.extensions.vector !== true) return;
  try {
    await services.startJob(em, REEMBED_JOB, {}, { orgId });
  } catch (err) {
    // The 409 inserts nothing and leaves the transaction usable.
    if ((err as { reason?: unknown }).reason !== 'job_running') throw err;
  }
}

export async function testRender({ values }: IntegrationContext): Promise<string> {
  const base = values[RENDER_SECRETS.url]!;
  const key = values[RENDER_SECRETS.apiKey];
  const where = `the page-rendering service at ${hostOf(base)}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/html' };
  if (key) headers.authorization = `Bearer ${key}`;
  let res;
  try {
    res = await safeFetch(`${base.replace(/(?<!\/)\/+$/, '')}/content`, {
      method: 'POST', headers, body: JSON.stringify({ url: RENDER_TEST_PAGE }), timeoutMs: TEST_TIMEOUT_MS, maxRedirects: 0, maxBytes: 2 * 1024 * 1024,
    });
  } catch (err) {
    if (!(err instanceof SafeFetchError)) throw err;
    if (err.reason === 'refused') throw new Error(`The rendering URL cannot be used (${err.message}): it should be the service's public http(s) address`);
    if (err.reason === 'timeout') throw new Error(`${cap(where)} did not render ${RENDER_TEST_PAGE} within ${TEST_TIMEOUT_MS / 1000} s; try again later`);
    if (err.reason === 'network') throw new Error(`${cap(where)} cannot be reached (${err.message}): check the URL`);
    throw new Error(`${cap(where)} failed (${err.message})`);
  }
  if (res.status === 401 || res.status === 403) throw new Error(`${res.status} from ${where}: check the key`);
  if (res.status === 404 || res.status === 405) throw new Error(`${res.status} from ${where}: check the URL (POST <url>/content should render a page, as browserless does)`);
  if (res.status >= 300 && res.status < 400) throw new Error(`${res.status} from ${where}: it redirects; set the address it redirects to`);
  if (!res.ok) throw new Error(`${res.status} from ${where} when rendering ${RENDER_TEST_PAGE}${res.status >= 500 ? '; try again later' : ''}`);
  const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'text/html') throw new Error(`${cap(where)} answered ${type || 'no content type'}, not HTML: is it a page-rendering service?`);
  return `${cap(where)} rendered ${RENDER_TEST_PAGE} (${res.body.length} bytes of HTML)`;
}

/** A URL named by its host only: it may carry credentials in its user info or query. */
function hostOf(url: string): string {
  try { return new URL(url).host; } catch { return 'its URL'; }
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
