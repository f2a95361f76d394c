// The campus submodule: one university (Northfield University, fictional: its sites are under northfield.example, a
// reserved name, until a deployment points the bases at a real university with SUBMODULES_BASE_URLS). Public pages
// the deployment crawls for subscribers' knowledge, small live queries answered from the university's sites, the web
// search, and the course-management and sign-in URLs. Content only: the submodules module runs it.
import { defineSubmodule } from 'quad-submodule-kit';

const DATE = { pattern: '\\d{4}-\\d{2}-\\d{2}', example: '2026-03-02' };

export default defineSubmodule({
  name: 'campus',
  title: 'Campus',
  description: 'A university\'s public pages in the org\'s knowledge (about, calendar, housing, library services, IT help), '
    + 'live answers from its sites (library hours, events, courses, dining, scholarships, news, shuttles, jobs, sports, web search), '
    + 'and its course-management and sign-in addresses.',
  readers: { pages: ['knowledge'], queries: ['agents'], links: ['accounts'] },
  bases: {
    site: { url: 'https://www.northfield.example', description: 'the main site: about, calendar, housing, events, courses, dining, scholarships, news and jobs' },
    library: { url: 'https://library.northfield.example', description: 'the libraries: hours and services' },
    transit: { url: 'https://transit.northfield.example', description: 'campus shuttles' },
    athletics: { url: 'https://athletics.northfield.example', description: 'sports schedules and results' },
    lms: { url: 'https://courses.northfield.example', description: 'the course-management system' },
    sso: { url: 'https://login.northfield.example', description: 'the university sign-in' },
  },
  pages: [
    { key: 'campus/about', url: '{site}/about', title: 'About Northfield University', category: 'campus', fetch_every_hours: 168 },
    { key: 'campus/academic-calendar', url: '{site}/academics/calendar', title: 'Academic calendar', category: 'campus', fetch_every_hours: 24 },
    { key: 'campus/housing', url: '{site}/housing', title: 'Housing and residence life', category: 'campus', fetch_every_hours: 72 },
    { key: 'campus/library-services', url: '{library}/services', title: 'Library services', category: 'campus', fetch_every_hours: 72 },
    { key: 'campus/it-help', url: '{site}/it-help', title: 'IT help desk', category: 'campus', fetch_every_hours: 72 },
  ],
  queries: [
    {
      name: 'library_hours',
      title: 'Library hours',
      description: 'Opening hours of one campus library, today or on a given day. Use it for "is the library open", "when does the science library close".',
      params: {
        branch: { description: 'which library', values: ['main', 'science', 'law', 'music'], default: 'main' },
        date: { description: 'the day (YYYY-MM-DD); left out: this week', ...DATE, optional: true },
      },
      source: { kind: 'http', base: 'library', path: '/hours/{branch}', query: { date: '{date}' } },
      answer: { kind: 'html', select: 'main' },
    },
    {
      name: 'events',
      title: 'Campus events',
      description: 'Upcoming events on campus (talks, fairs, concerts, games), optionally of one category. Each has its title, start, place and link.',
      params: {
        category: { description: 'kind of event', values: ['all', 'academic', 'arts', 'career', 'social', 'sports'], default: 'all' },
        days: { description: 'how many days ahead (1 to 60)', pattern: '[1-9]|[1-5][0-9]|60', example: '7', default: '14' },
      },
      source: { kind: 'http', base: 'site', path: '/api/events', query: { category: '{category}', days: '{days}' } },
      answer: { kind: 'json', items: 'events', fields: ['title', 'start', 'location', 'url'], empty: 'No events in that time.' },
    },
    {
      name: 'courses',
      title: 'Course catalog',
      description: 'The courses of one subject in the catalog (number, title, credits, when it is taught). Use it for "which CS courses are offered".',
      params: {
        subject: { description: 'subject code in capitals, e.g. CS, MATH, BIO', pattern: '[A-Z]{2,5}', example: 'CS' },
        term: { description: 'term, e.g. fall-2026; left out: every term', pattern: '(fall|spring|summer)-\\d{4}', example: 'fall-2026', optional: true },
      },
      source: { kind: 'http', base: 'site', path: '/catalog/courses/{subject}', query: { term: '{term}' } },
      answer: { kind: 'html', select: 'main' },
    },
    {
      name: 'dining',
      title: 'Dining menus',
      description: 'Today\'s menu and hours of one dining hall, optionally one meal.',
      params: {
        hall: { description: 'dining hall', values: ['commons', 'riverside', 'north'], default: 'commons' },
        meal: { description: 'one meal; left out: the whole day', values: ['breakfast', 'lunch', 'dinner'], optional: true },
      },
      source: { kind: 'http', base: 'site', path: '/dining/menus/{hall}', query: { meal: '{meal}' } },
      answer: { kind: 'html', select: 'main' },
    },
    {
      name: 'scholarships',
      title: 'Scholarships',
      description: 'Open scholarships with their amount and deadline, optionally for one level of study.',
      params: {
        level: { description: 'level of study; left out: all', values: ['undergraduate', 'graduate'], optional: true },
      },
      source: { kind: 'http', base: 'site', path: '/scholarships', query: { level: '{level}' } },
      answer: { kind: 'html', select: 'main' },
    },
    {
      name: 'news',
      title: 'University news',
      description: 'The latest university news, optionally on one topic: headline, date and summary.',
      params: {
        topic: { description: 'topic; left out: all news', values: ['research', 'campus', 'athletics', 'alumni'], optional: true },
      },
      source: { kind: 'http', base: 'site', path: '/api/news', query: { topic: '{topic}' } },
      answer: { kind: 'json', items: 'articles', fields: ['title', 'date', 'summary', 'url'], empty: 'No news on that topic.' },
    },
    {
      name: 'shuttles',
      title: 'Shuttle schedule',
      description: 'The schedule of one campus shuttle route and whether it runs today.',
      params: {
        route: { description: 'shuttle route', values: ['campus-loop', 'downtown', 'airport', 'night-owl'] },
      },
      source: { kind: 'http', base: 'transit', path: '/shuttles/{route}' },
      answer: { kind: 'html', select: 'main' },
    },
    {
      name: 'jobs',
      title: 'Student jobs',
      description: 'Open on-campus student jobs (work-study, part-time, research assistant), with department, pay and how to apply.',
      params: {
        type: { description: 'kind of job; left out: all', values: ['work-study', 'part-time', 'research'], optional: true },
      },
      source: { kind: 'http', base: 'site', path: '/api/jobs', query: { type: '{type}' } },
      answer: { kind: 'json', items: 'jobs', fields: ['title', 'department', 'pay', 'apply'], empty: 'No open jobs of that kind.' },
    },
    {
      name: 'sports',
      title: 'Sports',
      description: 'The schedule or the latest results of one varsity team.',
      params: {
        sport: { description: 'team', values: ['basketball', 'soccer', 'volleyball', 'baseball', 'swimming', 'track'] },
        view: { description: 'upcoming games or recent results', values: ['schedule', 'results'], default: 'schedule' },
      },
      source: { kind: 'http', base: 'athletics', path: '/sports/{sport}/{view}' },
      answer: { kind: 'html', select: 'main' },
    },
    {
      name: 'web',
      title: 'Web search',
      description: 'Searches the web (the deployment\'s search service) when no other query answers: titles, addresses and snippets of the top results. Not indexed.',
      params: {
        q: { description: 'what to search for', max_length: 300 },
      },
      source: { kind: 'search', query: '{q}' },
      index: false,
    },
  ],
  links: { course_management: '{lms}/', sign_in: '{sso}/login' },
});
