// ASU's Drupal JSON feeds, as ASU's own web components read them (ASU/asu-unity-stack, component-events and
// component-news): asuevents.asu.edu/feed-json and asunow.asu.edu/feeds-json answer { nodes: [{ node: {…} }] }.
// Events: title, start_date/end_date as shown ("Aug 31 2024 - 7:30pm"), very_end_date (ISO), campus, locations,
// event_types, interests, alias (its page). News: title, post_date, teaser (or clas_teaser, or body), path,
// news_units. Filtered here by the query's keywords (and an event's campus), in the feed's order (the events feed
// lists what is on from today, one entry per day of a recurring event; its end fields are not all dates, so no
// date filter is applied here).
import { jsonOf, type AnswerParser } from 'quad-submodule-kit';
import { hasWords, joined, line, record, required } from './text.js';

const MAX_EVENTS = 25;
const MAX_STORIES = 15;

const nodes = (answer: unknown) => required(answer, 'nodes').map((n) => record(record(n).node));

export const asuEvents: AnswerParser = (input) => {
  const campus = input.sent.campus?.toLowerCase();
  const events = nodes(jsonOf(input)).filter((e) => {
    if (campus && !`${line(e.campus)} ${line(e.location_term)}`.toLowerCase().includes(campus)) return false;
    const about = [e.title, e.body_summary, e.event_types, e.interests, e.event_topics, e.locations, e.college_unit].map((v) => line(v, 2000)).join(' ');
    return hasWords(about, input.params.keywords);
  });
  if (events.length === 0) return 'No upcoming ASU events match.';
  return events.slice(0, MAX_EVENTS).map((e) => {
    const start = line(e.start_date);
    const end = line(e.end_date);
    return joined([
      line(e.title),
      end && end !== start ? `${start} to ${end}` : start,
      joined([line(e.locations), line(e.campus)], ', '),
      line(e.event_types).split('|').join(', '),
      line(e.alias),
    ]);
  }).join('\n');
};

export const asuNews: AnswerParser = (input) => {
  const stories = nodes(jsonOf(input)).filter((s) => hasWords([s.title, s.teaser, s.clas_teaser, s.body, s.news_units].map((v) => line(v, 2000)).join(' '), input.params.keywords));
  if (stories.length === 0) return input.params.keywords ? `No ASU News story matches "${input.params.keywords}".` : 'No ASU News stories.';
  return stories.slice(0, MAX_STORIES).map((s) => {
    // The feed's body keeps the end of a CDATA section ("…]]>"): dropped.
    const summary = line(s.teaser, 280) || line(s.clas_teaser, 280) || line(typeof s.body === 'string' ? s.body.split(']]>').join('') : '', 280);
    return joined([line(s.title), line(s.post_date), line(s.news_units).split('|').join(', '), line(s.path)]) + (summary ? `\n${summary}` : '');
  }).join('\n\n');
};
