// Running a submodule's answer parser (a kit's code: `answer: { kind: 'parser', parser, format }`) on bounded input:
// the answer's text is cut off at PARSER_MAX_CHARS before it is parsed (JSON, or an HTML/XML document through
// cheerio, loaded here on first use) and the parser runs synchronously on it. Whatever goes wrong inside — the
// parser's AnswerShapeError (the site changed its page) or any other error of a parser meeting a shape it did not
// expect — becomes an UnexpectedAnswer, which the caller answers as a 502 naming the source: never a 500, never the
// answer itself.
import { AnswerShapeError, type AnswerParser, type ParserInput } from 'quad-submodule-kit';
import { UnexpectedAnswer } from './text.js';

/** The longest answer a parser reads (characters); a longer one is not the page the parser knows. */
export const PARSER_MAX_CHARS = 3_000_000;

export async function parseAnswer(
  parser: AnswerParser, format: ParserInput['format'], text: string, context: { params: Record<string, string>; sent: Record<string, string>; url: string; now: Date },
): Promise<string> {
  if (text.length > PARSER_MAX_CHARS) throw new UnexpectedAnswer(`the answer is longer than ${PARSER_MAX_CHARS} characters`);
  let input: ParserInput;
  if (format === 'json') {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new UnexpectedAnswer('the answer is not JSON');
    }
    input = { ...context, text, format, data };
  } else if (format === 'html' || format === 'xml') {
    const { load } = await import('cheerio');
    input = { ...context, text, format, $: load(text, { xml: format === 'xml' }) };
  } else {
    input = { ...context, text, format };
  }
  let out: unknown;
  try {
    out = parser(input);
  } catch (err) {
    if (err instanceof AnswerShapeError) throw new UnexpectedAnswer(err.message);
    throw new UnexpectedAnswer(`its reader failed on it: ${err instanceof Error ? err.name : 'an error'}`);
  }
  if (typeof out !== 'string') throw new UnexpectedAnswer('its reader gave no text');
  return out.trim();
}
