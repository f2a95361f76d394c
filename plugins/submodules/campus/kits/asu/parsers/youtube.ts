// A YouTube channel's public Atom feed (youtube.com/feeds/videos.xml?channel_id=…): <feed><entry> with <title>,
// <published>, <link rel="alternate" href>, <media:group><media:description>. The newest posts first, narrowed to
// the query's keywords (in the title or description).
import { AnswerShapeError, documentOf, type AnswerParser } from 'quad-submodule-kit';
import { hasWords, joined, line } from './text.js';

const MAX_POSTS = 8;

export const youtubeFeed: AnswerParser = (input) => {
  const $ = documentOf(input);
  if ($('feed').length === 0) throw new AnswerShapeError('not an Atom feed');
  const channel = line($('feed > title').first().text()) || input.params.account;
  const posts = $('feed > entry').toArray().flatMap((el) => {
    const entry = $(el);
    const title = line(entry.children('title').text(), 160);
    const about = line(entry.find('media\\:description').first().text(), 200);
    if (!hasWords(`${title} ${about}`, input.params.keywords)) return [];
    const published = line(entry.children('published').text()).slice(0, 10);
    return [joined([published, title, entry.children('link[rel="alternate"]').attr('href') ?? '', about])];
  });
  return [`${channel} on YouTube:`, ...(posts.length ? posts.slice(0, MAX_POSTS) : ['No matching posts.'])].join('\n');
};
