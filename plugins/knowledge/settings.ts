// The knowledge module's deployment settings (manifest `settings`) and the org knowledge settings (org config key
// `knowledge`, spec "Org knowledge settings"): their ranges, defaults and how an org's stored values resolve.
import { Type, VERSION as CORE_VERSION, type Static } from '@quad/core';

export const KnowledgeSettingsSchema = Type.Object({
  EMBEDDINGS_URL: Type.Optional(Type.String({ description: 'base URL of an OpenAI-compatible embeddings service (ending /v1); unset: no deployment embedder' })),
  EMBEDDINGS_MODEL: Type.String({ default: 'default', minLength: 1, description: 'model name sent and kept on each version' }),
  EMBEDDINGS_API_KEY: Type.Optional(Type.String({ description: 'bearer key for EMBEDDINGS_URL; if empty and the URL is the model gateway\'s, GATEWAY_API_KEY is sent' })),
  GATEWAY_URL: Type.Optional(Type.String({ description: 'base URL of the model gateway (an EMBEDDINGS_URL under it is the gateway\'s)' })),
  GATEWAY_API_KEY: Type.Optional(Type.String({ description: 'default key of the gateway integration' })),
  EMBEDDINGS_QUERY_PREFIX: Type.String({ default: '', description: 'text put before search queries (not passages) when embedding them' }),
  KNOWLEDGE_MAX_DISTANCE: Type.Number({ default: 0.6, minimum: 0.05, maximum: 2, description: 'default of the org setting max_distance (cosine distance)' }),
  KNOWLEDGE_PUBLISHERS: Type.String({ default: '', description: 'org prefixes (comma-separated) allowed to write public sources' }),
  KNOWLEDGE_CHUNK_CHARS: Type.Integer({ default: 300, minimum: 100, maximum: 4000, description: 'default of the org setting chunk_chars' }),
  KNOWLEDGE_CRAWL_BATCH: Type.Integer({ default: 20, minimum: 1, maximum: 1000, description: 'sources crawled in each run of knowledge.crawl_due, one source of each org in turn' }),
  KNOWLEDGE_CRAWL_GAP_SECONDS: Type.Number({ default: 2, minimum: 0, maximum: 3600, description: 'seconds between fetches to one host' }),
  KNOWLEDGE_USER_AGENT: Type.String({ default: `QuadBot/${CORE_VERSION} (+https://github.com/quad-org/quad)`, minLength: 1, description: 'sent with fetches and matched to robots.txt (its first word is the robots.txt token)' }),
  RENDER_URL: Type.Optional(Type.String({ description: 'page-rendering service for JavaScript pages (POST <url>/content {url} answers HTML); unset: plain GET' })),
  RENDER_API_KEY: Type.Optional(Type.String({ description: 'bearer key for RENDER_URL' })),
  KNOWLEDGE_EMBED_TIMEOUT_MS: Type.Integer({ default: 30_000, minimum: 100, maximum: 600_000, description: 'deadline of one request to the embeddings service (a batch of up to 64 texts, answer included), in ms; a write that runs out of it is 502, a search text only' }),
  KNOWLEDGE_EXACT_SCAN_MAX: Type.Integer({ default: 50_000, minimum: 0, maximum: 10_000_000, description: 'vector searches whose scope has at most this many passages scan them exactly instead of taking the HNSW index' }),
});
export type KnowledgeSettings = Static<typeof KnowledgeSettingsSchema>;

/** Names the spec pins outside the KNOWLEDGE_* namespace. */
export const CLAIMED_SETTINGS = ['EMBEDDINGS_URL', 'EMBEDDINGS_MODEL', 'EMBEDDINGS_API_KEY', 'GATEWAY_URL', 'GATEWAY_API_KEY', 'EMBEDDINGS_QUERY_PREFIX', 'RENDER_URL', 'RENDER_API_KEY'];

export const MODES = ['hybrid', 'text', 'vector'] as const;
export type Mode = (typeof MODES)[number];

/** One org's knowledge settings, every one resolved. */
export interface OrgKnowledge {
  chunk_chars: number;
  chunk_overlap: number;
  mode: Mode;
  top_k: number;
  window: number;
  max_distance: number;
  rrf_k: number;
}

/** The org config key the settings live under (spec: "org config key knowledge"). */
export const ORG_CONFIG_KEY = 'knowledge';

/** Ranges of the spec's table; chunk_overlap's upper bound is half of chunk_chars (checked in the route). */
export const ORG_SETTING_RANGES = {
  chunk_chars: { minimum: 100, maximum: 4000 },
  chunk_overlap: { minimum: 0, maximum: 2000 },
  top_k: { minimum: 1, maximum: 50 },
  window: { minimum: 0, maximum: 5 },
  max_distance: { minimum: 0.05, maximum: 2 },
  rrf_k: { minimum: 1, maximum: 200 },
} as const;

export function orgDefaults(settings: KnowledgeSettings): OrgKnowledge {
  return {
    chunk_chars: settings.KNOWLEDGE_CHUNK_CHARS, chunk_overlap: 0, mode: 'hybrid', top_k: 8, window: 0,
    max_distance: settings.KNOWLEDGE_MAX_DISTANCE, rrf_k: 60,
  };
}

/** Stored values over the defaults; a stored value out of its range (a default changed since) is ignored. */
export function resolveOrgSettings(settings: KnowledgeSettings, stored: Partial<Record<keyof OrgKnowledge, unknown>> | undefined): OrgKnowledge {
  const out = orgDefaults(settings);
  for (const [key, range] of Object.entries(ORG_SETTING_RANGES) as [keyof typeof ORG_SETTING_RANGES, { minimum: number; maximum: number }][]) {
    const v = stored?.[key];
    if (typeof v === 'number' && v >= range.minimum && v <= range.maximum) (out[key] as number) = v;
  }
  if (typeof stored?.mode === 'string' && (MODES as readonly string[]).includes(stored.mode)) out.mode = stored.mode as Mode;
  if (out.chunk_overlap > Math.floor(out.chunk_chars / 2)) out.chunk_overlap = Math.floor(out.chunk_chars / 2);
  return out;
}

/** Is the org a publisher: the superadmin's switch, or its prefix in KNOWLEDGE_PUBLISHERS. */
export function isPublisher(settings: KnowledgeSettings, org: { prefix: string; publisher: boolean }): boolean {
  if (org.publisher) return true;
  const listed = settings.KNOWLEDGE_PUBLISHERS.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  return listed.includes(org.prefix.toLowerCase());
}
