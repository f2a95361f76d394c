// The small pieces of code a submodule may carry beside its content (a university kit's parsers and parameter
// transforms), for the rules its declarative form cannot say: an ASU term "Fall 2026" is sent as 2267, a class search
// answer is read into one line per section. Content names them (`answer: { kind: 'parser', parser }`, a parameter's
// `transform`); `defineSubmodule(content, code)` carries them, and the check refuses a name the code does not hold.
// Both run on bounded input: a transform on one checked parameter value, a parser on an answer of capped size
// (SUBMODULE_PARSER_MAX_CHARS in the submodules module), synchronously, with no I/O of their own.
import type { CheerioAPI } from 'cheerio';

/** What a parser gets: the answer in its declared format, the parameters as the caller gave them (checked), and when. */
export type ParserInput = {
  /** The query's parameters as checked (defaults filled; the caller's forms, before codes and transforms). */
  params: Readonly<Record<string, string>>;
  /** The same parameters as the site takes them (codes looked up, lists joined, transforms applied). */
  sent: Readonly<Record<string, string>>;
  /** The address that answered (after redirects). */
  url: string;
  /** The time of the query (parsers that say "upcoming" or "today" use it, never the clock). */
  now: Date;
  /** The answer's text (at most the parser cap). */
  text: string;
} & ({ format: 'json'; data: unknown } | { format: 'html' | 'xml'; $: CheerioAPI } | { format: 'text' });

/** Turns an answer into the text an agent reads. Throws AnswerShapeError when the answer is not what it reads. */
export type AnswerParser = (input: ParserInput) => string;

export interface TransformContext {
  /** The time of the query ("today" in a date parameter). */
  now: Date;
}

/** Turns a checked parameter value into what the site takes; throws ParamRefused to refuse it. */
export type ParamTransform = (value: string, context: TransformContext) => string;

/** A parameter value a transform refuses: the message completes `Parameter "<name>" …` (a 422 for the caller). */
export class ParamRefused extends Error {
  override name = 'ParamRefused';
}

/**
 * The answer does not have the shape the parser reads (the site changed its page or API): the caller gets a 502 that
 * names the source and this message, never the answer itself.
 */
export class AnswerShapeError extends Error {
  override name = 'AnswerShapeError';
}

export interface SubmoduleCode {
  /** Answer parsers by name (an http query's `answer: { kind: 'parser', parser: '<name>' }`). */
  parsers?: Readonly<Record<string, AnswerParser>>;
  /** Parameter transforms by name (a parameter's `transform: '<name>'`). */
  transforms?: Readonly<Record<string, ParamTransform>>;
}

/** The JSON of a parser's input, or AnswerShapeError when the query declared another format. */
export function jsonOf(input: ParserInput): unknown {
  if (input.format !== 'json') throw new AnswerShapeError(`the parser reads JSON, the query declares ${input.format}`);
  return input.data;
}

/** The document of a parser's input (HTML or XML), or AnswerShapeError when the query declared another format. */
export function documentOf(input: ParserInput): CheerioAPI {
  if (input.format !== 'html' && input.format !== 'xml') throw new AnswerShapeError(`the parser reads a document, the query declares ${input.format}`);
  return input.$;
}
