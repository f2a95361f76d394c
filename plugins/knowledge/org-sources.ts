// The service `knowledge.org_sources` (issue 19 contracts): other modules write text as the org's own source — the
// submodules module's job submodules.index_result stores a live query's answer this way. The text takes the path of
// uploads and crawls: split into passages with the org's settings, embedded with the org's embedder, written by
// writeSource (limits reserved and the version replaced in one transaction); the same text writes nothing.
import { createHash } from 'node:crypto';
import { Organization, badRequest, defineService, notFound, type CoreServices, type EntityManager } from '@quad/core';
import { knowledgeContext } from './context.js';
import { splitPassages } from './extract/passages.js';
import { MAX_CHUNKS, findSource, sourceKey, writeSource } from './sources.js';

export interface OrgSourceText { key: string; title: string; url: string; category: string; text: string }

export interface OrgSources {
  /**
   * Write `text` as the org's own source `key` (origin `api`: written by a module, not split from a page), split into
   * passages with the org's settings and embedded like a crawl, counted against the org's knowledge limits. The same
   * text, title, url and category as now writes nothing and answers { changed: false }. Throws HttpError: 400 (a bad
   * key, blank text, too many passages), 404 (no such org), 409/429 (limits), 502 (the embedder); nothing is written then.
   */
  writeText(em: EntityManager, orgId: number, source: OrgSourceText): Promise<{ changed: boolean }>;
}

export const orgSourcesRef = defineService<OrgSources>({
  id: 'knowledge.org_sources',
  methods: ['writeText'],
  description: 'Write text as an org\'s own knowledge source (split, embedded and counted like an upload)',
});

/** NUL and lone surrogates cannot be stored in a text column: U+FFFD in their place (the text came from outside). */
const storable = (text: string) => text.replace(/[\u0000\p{Cs}]/gu, '\uFFFD');

export function orgSourcesFor(services: CoreServices): OrgSources {
  return {
    async writeText(em, orgId, input) {
      const org = await em.findOne(Organization, { id: orgId });
      if (!org) throw notFound(`No org ${orgId}`, 'org_not_found');
      const key = sourceKey(input.key, 'key');
      const [title, url, category, text] = [input.title, input.url, input.category, input.text].map((s) => storable(s ?? ''));
      const knowledge = await knowledgeContext(services, em, org);
      const { chunk_chars: chunkChars, chunk_overlap: overlap } = knowledge.settings;
      const passages = splitPassages(text, { chunkChars, overlap });
      if (!passages.length) throw badRequest('text: blank; there is nothing to write', 'no_text', { field: 'text' });
      if (passages.length > MAX_CHUNKS) {
        throw badRequest(`text: splits into ${passages.length} passages; a source holds up to ${MAX_CHUNKS}`, 'too_many_chunks', { field: 'text' });
      }
      // The same text at the same passage size is the same version.
      const hash = `text:${createHash('sha256').update(`${chunkChars}\0${overlap}\0${text}`).digest('hex')}`;
      const current = await findSource(knowledge.db, key);
      if (current?.current_version?.content_hash === hash && current.title === title && current.url === url && current.category === category) {
        return { changed: false };
      }
      const written = await writeSource({ ...knowledge, chunkOverlap: overlap }, key, {
        title, url, category, content_hash: hash, chunks: passages.map((content, ordinal) => ({ ordinal, content })),
      });
      return { changed: written.changed };
    },
  };
}
