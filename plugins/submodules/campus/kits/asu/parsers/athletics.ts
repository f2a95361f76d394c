// Sun Devil Athletics (thesundevils.com, a SIDEARM Sports site): a sport's schedule page lists each game as
// `li.sidearm-schedule-game` (date, opponent, location, result in their sidearm-schedule-game-* parts), and the
// site's RSS feed (/rss) carries the stories, each tagged with its sport. The seed read both
// (asusoda/platform packs/asu/queries/sports.py, sports_news.py).
import { AnswerShapeError, documentOf, type AnswerParser } from 'quad-submodule-kit';
import { hasWords, joined, line } from './text.js';

const MAX_GAMES = 40;
const MAX_STORIES = 10;

export const sidearmSchedule: AnswerParser = (input) => {
  const $ = documentOf(input);
  const games = $('.sidearm-schedule-game');
  if (games.length === 0) {
    // A season with no games yet says so; any other page is not the schedule the parser knows.
    if ($('.sidearm-schedule-games-container, .sidearm-schedule').length) return `No ${input.params.sport} games are listed yet.`;
    throw new AnswerShapeError('no schedule (sidearm-schedule-game) on the page');
  }
  // A part's innermost elements (date and time spans, a rank and a linked name) as words: their text run together
  // would read "Aug 31 (Sat)7:30 PM".
  const text = (el: ReturnType<typeof $>, selector: string) => {
    const part = el.find(selector).first();
    const leaves = part.find('*').toArray().filter((e) => $(e).children().length === 0).map((e) => line($(e).text())).filter(Boolean);
    return leaves.length ? leaves.join(' ') : line(part.text());
  };
  const rows = games.toArray().slice(0, MAX_GAMES).map((g) => {
    const game = $(g);
    const at = game.hasClass('sidearm-schedule-home-game') ? 'vs.' : game.hasClass('sidearm-schedule-away-game') ? 'at' : '';
    return joined([
      text(game, '.sidearm-schedule-game-opponent-date'),
      joined([at, text(game, '.sidearm-schedule-game-opponent-name')], ' '),
      text(game, '.sidearm-schedule-game-location'),
      text(game, '.sidearm-schedule-game-result'),
    ]);
  });
  const season = line($('.sidearm-schedule-title h2, .sidearm-schedule-title').first().text());
  return [season || `Sun Devil ${input.params.sport} schedule`, ...rows].join('\n');
};

export const sidearmNews: AnswerParser = (input) => {
  const $ = documentOf(input);
  const items = $('item');
  if (items.length === 0 && $('channel').length === 0) throw new AnswerShapeError('not an RSS feed (no channel)');
  const sport = input.sent.sport?.toLowerCase();
  const stories = items.toArray().filter((el) => {
    const item = $(el);
    const tag = line(item.children('sports').first().text() || item.children('category').first().text()).toLowerCase();
    if (sport && tag !== sport) return false;
    return hasWords(line(item.children('title').text()), input.params.keywords);
  });
  if (stories.length === 0) return 'No Sun Devil Athletics story matches.';
  return stories.slice(0, MAX_STORIES).map((el) => {
    const item = $(el);
    const when = Date.parse(line(item.children('pubDate').text()));
    return joined([
      Number.isFinite(when) ? new Date(when).toISOString().slice(0, 10) : '',
      line(item.children('title').text()),
      line(item.children('sports').first().text() || item.children('category').first().text()),
      line(item.children('link').text()),
    ]);
  }).join('\n');
};
