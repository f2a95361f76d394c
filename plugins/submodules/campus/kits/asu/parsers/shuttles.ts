// The intercampus shuttle page (cfo.asu.edu/shuttles, the seed's crawled source for shuttles): one section per route,
// each under a heading that names it (Tempe-West Express, Polytechnic-Tempe, …). With a route, that route's section;
// without, every route section. A page without any route heading is not the page the parser knows.
import { AnswerShapeError, documentOf, type AnswerParser } from 'quad-submodule-kit';
import { line } from './text.js';

/** The routes, as the page names them. */
export const ROUTE_NAMES = ['Tempe-West Express', 'Tempe-Downtown Phoenix-West', 'Polytechnic-Tempe', 'Mercado'];
const HEADINGS = 'h2, h3, h4';
const MAX_LINES_PER_ROUTE = 40;

export const shuttleRoutes: AnswerParser = (input) => {
  const $ = documentOf(input);
  const root = $('main').length ? $('main') : $('body');
  const wanted = input.sent.route;
  const sections: string[] = [];
  for (const el of root.find(HEADINGS).toArray()) {
    const heading = $(el);
    const title = line(heading.text());
    // The longest route name a heading holds (Tempe-Downtown Phoenix-West holds no shorter route name, but check).
    const route = ROUTE_NAMES.filter((r) => title.toLowerCase().includes(r.toLowerCase())).sort((a, b) => b.length - a.length)[0];
    if (!route || (wanted && route !== wanted)) continue;
    const lines = [title];
    // The heading's section: its siblings up to the next heading.
    for (let next = heading.next(); next.length && !next.is(HEADINGS); next = next.next()) {
      const text = next.find('li').length ? next.find('li').toArray().map((li) => `- ${line($(li).text())}`) : [line(next.text())];
      lines.push(...text.filter((t) => t && t !== '-'));
      if (lines.length > MAX_LINES_PER_ROUTE) break;
    }
    sections.push(lines.slice(0, MAX_LINES_PER_ROUTE + 1).join('\n'));
  }
  if (sections.length === 0) {
    if (wanted) throw new AnswerShapeError(`no section for the route ${wanted}`);
    throw new AnswerShapeError('no shuttle route headings');
  }
  return sections.join('\n\n');
};
