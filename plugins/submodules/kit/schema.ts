// The shape of a submodule package's content (spec document 3, "Submodules"): a domain orgs subscribe to, held as
// content and settings, never behaviour. Each part is read by another module: shared public pages (knowledge), live
// queries (agents and tools), feed presets (feeds) and links such as a course-management URL (accounts).
// Templates: `{name}` in a page URL or a link names one of `bases`; in a live query's path and query it names a
// parameter. Base URLs are settings (SUBMODULES_BASE_URLS), so a deployment points a submodule at its own sites.
import { Type, type Static } from '@sinclair/typebox';

export const SUBMODULE_NAME = '^[a-z][a-z0-9_-]{1,39}$';
const IDENT = '^[a-z][a-z0-9_]{0,39}$';
/** Knowledge source keys: letters, digits and `._:/-`. */
const PAGE_KEY = '^[A-Za-z0-9._:/-]{1,200}$';
const FEED_KEY = '^[a-z0-9-]{1,40}$';
const MODULE_NAME = '^[a-z][a-z0-9_]{1,31}$';

const Text = (max: number, description: string) => Type.String({ minLength: 1, maxLength: max, description });

export const BaseSchema = Type.Object({
  url: Type.String({ pattern: '^https?://[^\\s{}]+$', maxLength: 500, description: 'the default base URL (no trailing slash needed), e.g. https://library.example.edu' }),
  description: Text(300, 'what the site is, for operators who point it elsewhere'),
  title: Type.Optional(Text(100, 'the site\'s name in error messages (a 502 names the source that failed), e.g. "ASU Class Search". Default: "its site"')),
}, { additionalProperties: false });

export const PageSchema = Type.Object({
  key: Type.String({ pattern: PAGE_KEY, description: 'the shared source key, unique in the submodule, e.g. campus/about' }),
  url: Type.String({ minLength: 1, maxLength: 1000, description: 'a URL, or a template on a base: {site}/about' }),
  title: Text(300, 'the page title shown with search results'),
  category: Text(100, 'the knowledge category, e.g. campus'),
  fetch_every_hours: Type.Integer({ minimum: 1, maximum: 720, description: 'how often the deployment crawls it (1 to 720)' }),
}, { additionalProperties: false });

export const ParamSchema = Type.Object({
  description: Text(500, 'what the parameter means, for a model reader'),
  values: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 200, uniqueItems: true, description: 'the accepted values (exact)' })),
  codes: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ maxLength: 200 }), {
    description: 'accepted values (any letter case) mapped to what the site takes: { "upper division": "upperdivision" }; not with values',
  })),
  many: Type.Optional(Type.Boolean({ description: 'a comma list of accepted values ("monday,wednesday"), each checked, sent joined with `join`. Default: false (one value; a comma list is refused)' })),
  join: Type.Optional(Type.String({ minLength: 1, maxLength: 5, description: 'what joins the values of a `many` parameter in the request. Default: ","' })),
  transform: Type.Optional(Type.String({ pattern: IDENT, description: 'the name of one of the submodule\'s transforms (code.transforms) that turns the checked value into what the site takes, or refuses it: "Fall 2026" → "2267"' })),
  pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'a regular expression the whole value must match' })),
  example: Type.Optional(Type.String({ maxLength: 200, description: 'an accepted value, shown with a pattern' })),
  default: Type.Optional(Type.String({ maxLength: 200, description: 'used when the caller sends none' })),
  optional: Type.Optional(Type.Boolean({ description: 'may be left out (its path/query part is then dropped). Default: false' })),
  max_length: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'longest value. Default: 200' })),
}, { additionalProperties: false });

export const HttpSourceSchema = Type.Object({
  kind: Type.Literal('http'),
  base: Type.String({ pattern: IDENT, description: 'the base the path is on (one of bases)' }),
  path: Type.String({ pattern: '^/', maxLength: 500, description: 'path template: /hours/{branch}' }),
  query: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z0-9_.\\[\\]-]{1,60}$' }), Type.String({ maxLength: 200 }), {
    description: 'query parameters: name → template ({param}); one whose parameters are missing is left out',
  })),
  headers: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9-]{0,40}$' }), Type.String({ maxLength: 200, pattern: '^[^\\r\\n{}]*$' }), {
    maxProperties: 10, description: 'fixed request headers the site needs, e.g. { authorization: "Bearer null" } (no templates; not host, cookie or user-agent)',
  })),
}, { additionalProperties: false });

export const SearchSourceSchema = Type.Object({
  kind: Type.Literal('search'),
  query: Type.String({ minLength: 1, maxLength: 300, description: 'the search words, a template: "{q}"' }),
}, { additionalProperties: false });

export const AnswerSchema = Type.Union([
  Type.Object({
    kind: Type.Literal('html'),
    select: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'CSS selector of the part to read. Default: <main>, else the body' })),
  }, { additionalProperties: false }),
  Type.Object({
    kind: Type.Literal('json'),
    items: Type.Optional(Type.String({ maxLength: 200, description: 'dot path to the list in the answer. Default: the answer itself' })),
    fields: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 30, description: 'dot paths read from each item, one "field: value" line each' }),
    empty: Type.Optional(Type.String({ maxLength: 300, description: 'the text when the list is empty. Default: "No results."' })),
  }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('text') }, { additionalProperties: false }),
  Type.Object({
    kind: Type.Literal('parser'),
    parser: Type.String({ pattern: IDENT, description: 'the name of one of the submodule\'s parsers (code.parsers) that turns the answer into text' }),
    format: Type.Union([Type.Literal('json'), Type.Literal('html'), Type.Literal('xml'), Type.Literal('text')], {
      description: 'how the answer is handed to the parser: parsed JSON, an HTML or XML document (cheerio), or the text',
    }),
  }, { additionalProperties: false }),
]);

export const QuerySchema = Type.Object({
  name: Type.String({ pattern: IDENT, description: 'unique in the submodule, e.g. library_hours' }),
  title: Text(200, 'a short title'),
  description: Text(1000, 'what it answers and when to use it, for a model reader'),
  params: Type.Record(Type.String({ pattern: IDENT }), ParamSchema, { description: 'parameters by name' }),
  source: Type.Union([HttpSourceSchema, SearchSourceSchema]),
  answer: Type.Optional(AnswerSchema),
  index: Type.Optional(Type.Boolean({ description: 'write answers into the asking org\'s knowledge. Default: true, false for a search' })),
}, { additionalProperties: false });

export const FeedPresetSchema = Type.Object({
  key: Type.String({ pattern: FEED_KEY, description: 'the feed key an org gets when it adds the preset' }),
  title: Text(200, 'e.g. Software internships'),
  description: Text(1000, 'what the feed posts'),
  kind: Type.Union([Type.Literal('repo_jobs'), Type.Literal('hackathons')]),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'a config the feeds module accepts for the kind' }),
}, { additionalProperties: false });

export const PARTS = ['pages', 'queries', 'feeds', 'links'] as const;
export type Part = (typeof PARTS)[number];

export const SubmoduleSchema = Type.Object({
  name: Type.String({ pattern: SUBMODULE_NAME, description: 'lower-case id, unique in the deployment: campus' }),
  title: Text(200, 'e.g. Campus'),
  description: Text(2000, 'what an org gets by subscribing'),
  readers: Type.Object({
    pages: Type.Optional(Type.Array(Type.String({ pattern: MODULE_NAME }), { maxItems: 10 })),
    queries: Type.Optional(Type.Array(Type.String({ pattern: MODULE_NAME }), { maxItems: 10 })),
    feeds: Type.Optional(Type.Array(Type.String({ pattern: MODULE_NAME }), { maxItems: 10 })),
    links: Type.Optional(Type.Array(Type.String({ pattern: MODULE_NAME }), { maxItems: 10 })),
  }, { additionalProperties: false, description: 'the modules that read each part, e.g. { pages: [\'knowledge\'] }' }),
  bases: Type.Optional(Type.Record(Type.String({ pattern: IDENT }), BaseSchema, { description: 'named base URLs the templates use' })),
  pages: Type.Optional(Type.Array(PageSchema, { maxItems: 500 })),
  queries: Type.Optional(Type.Array(QuerySchema, { maxItems: 100 })),
  feeds: Type.Optional(Type.Array(FeedPresetSchema, { maxItems: 50 })),
  links: Type.Optional(Type.Object({
    course_management: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'the course-management system, a URL or template: {lms}/' })),
    sign_in: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'the sign-in page, a URL or template: {sso}/login' })),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

export type SubmoduleContent = Static<typeof SubmoduleSchema>;
export type BaseDecl = Static<typeof BaseSchema>;
export type PageDecl = Static<typeof PageSchema>;
export type ParamDecl = Static<typeof ParamSchema>;
export type QueryDecl = Static<typeof QuerySchema>;
export type AnswerDecl = Static<typeof AnswerSchema>;
export type FeedPresetDecl = Static<typeof FeedPresetSchema>;
export type LinksDecl = NonNullable<SubmoduleContent['links']>;
