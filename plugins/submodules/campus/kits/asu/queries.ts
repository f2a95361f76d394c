// The ASU kit's live queries (spec: the campus submodule's live queries), in the seed system's order
// (asusoda/platform packs/asu/queries): each declares its parameters and their rules, the ASU endpoint it asks and
// how its answer is read (a parser of parsers/, named in index.ts, or the generic HTML reader). Choices map what a
// student writes to the code the site takes (`codes`); a term goes through the asu_term transform ("Fall 2026" →
// 2267), a date through arizona_date; `many` parameters take a comma list. Answers of queries about the moment
// (events, study rooms, shuttles) are not indexed.
import type { ParamDecl, QueryDecl } from 'quad-submodule-kit';
import { ROUTE_NAMES } from './parsers/shuttles.js';

const TERM: ParamDecl = { description: 'the term: Spring, Summer or Fall and the year, e.g. Fall 2026', example: 'Fall 2026', max_length: 20, transform: 'asu_term' };
const KEYWORDS = (description: string, example: string): ParamDecl => ({ description, example, optional: true, max_length: 100 });
const DATE: ParamDecl = {
  description: 'the day: YYYY-MM-DD, today or tomorrow (Arizona time)', pattern: '\\d{4}-\\d{2}-\\d{2}|today|tomorrow', example: '2026-09-14',
  default: 'today', max_length: 10, transform: 'arizona_date',
};
const same = (names: string[]) => Object.fromEntries(names.map((n) => [n, n]));

/** The class search API's fixed parameters, as the class search page sends them. */
const CLASS_SEARCH_FIXED = { refine: 'Y', campusOrOnlineSelection: 'A', honors: 'F', promod: 'F' };
const BEARER_NULL = { authorization: 'Bearer null' }; // the API's anonymous token (the page sends the same)

export const queries: QueryDecl[] = [
  {
    name: 'courses',
    title: 'Class search',
    description: 'ASU class sections of one term: course, class number, meeting days and times, place, instructor, credits and open seats. '
      + 'Use it for "is CSE 310 open in Fall 2026", "which online MAT classes meet on Tuesdays". Example params: {"term": "Fall 2026", "keywords": "CSE 310", "days": "monday,wednesday"}',
    params: {
      term: TERM,
      keywords: KEYWORDS('subject, course number, title or class number, e.g. CSE 310', 'CSE 310'),
      level: {
        description: 'course levels, a comma list', many: true, optional: true,
        codes: { 'lower division': 'lowerdivision', 'upper division': 'upperdivision', undergraduate: 'undergrad', graduate: 'grad', '100-199': '100-199', '200-299': '200-299', '300-399': '300-399', '400-499': '400-499' },
      },
      days: {
        description: 'meeting days, a comma list: monday,wednesday', many: true, optional: true,
        codes: { monday: 'MON', tuesday: 'TUES', wednesday: 'WED', thursday: 'THURS', friday: 'FRI', saturday: 'SAT', sunday: 'SUN' },
      },
      session: { description: 'session within the term: a (first half), b (second half), c (whole term) or other', optional: true, codes: { a: 'A', b: 'B', c: 'C', other: 'DYN' } },
      open_only: { description: 'only sections with open seats', codes: { true: 'open', false: 'all' }, default: 'false' },
    },
    source: {
      kind: 'http', base: 'class_search', path: '/catalog-microservices/api/v1/search/classes', headers: BEARER_NULL,
      query: { ...CLASS_SEARCH_FIXED, searchType: '{open_only}', term: '{term}', keywords: '{keywords}', level: '{level}', daysOfWeek: '{days}', session: '{session}' },
    },
    answer: { kind: 'parser', parser: 'class_search', format: 'json' },
  },
  {
    name: 'course_catalog',
    title: 'Course catalog',
    description: 'One ASU course in the catalog: what it covers, its credit hours and general studies designation (no sections or seats: see courses). Example params: {"keywords": "CSE 485"}',
    params: {
      keywords: { description: 'course code, subject or title, e.g. CSE 485', example: 'CSE 485', max_length: 100 },
      term: { ...TERM, description: 'the term the catalog entry is read for, e.g. Fall 2026; left out: the current catalog', optional: true },
    },
    source: { kind: 'http', base: 'class_search', path: '/catalog-microservices/api/v1/search/courses', headers: BEARER_NULL, query: { refine: 'Y', keywords: '{keywords}', term: '{term}' } },
    answer: { kind: 'parser', parser: 'course_catalog', format: 'json' },
  },
  {
    name: 'scholarships',
    title: 'Scholarships',
    description: 'ASU scholarships, searched by keyword and narrowed by citizenship, year of study and field. Example params: {"applicant": "third-year undergrad", "focus": "stem"}',
    params: {
      keywords: KEYWORDS('words in the scholarship\'s name or description', 'women in engineering'),
      citizenship: { description: 'citizenship status', optional: true, codes: { 'us citizen': '75', 'us permanent resident': '76', 'daca/dreamer': '77', 'international student': '78' } },
      applicant: {
        description: 'year of study', optional: true,
        codes: { 'first-year undergrad': '58', 'second-year undergrad': '59', 'third-year undergrad': '60', 'fourth-year+ undergrad': '61', 'graduate student': '62', 'undergraduate alumni': '63', 'graduate alumni': '64' },
      },
      focus: {
        description: 'field of focus', optional: true,
        codes: {
          'business and entrepreneurship': '44', 'creative and performing arts': '45', 'environment and sustainability': '46', 'health and medicine': '47', humanities: '48',
          'international affairs': '49', 'journalism and media': '50', 'national security': '51', 'public service': '52', 'public policy': '53', 'social justice': '54', stem: '55',
          'peace and conflict resolution': '56', 'social science': '57',
        },
      },
    },
    source: { kind: 'http', base: 'scholarships', path: '/scholarships', query: { combine: '{keywords}', field_citizenship_status: '{citizenship}', field_eligible_applicants: '{applicant}', field_focus: '{focus}' } },
    answer: { kind: 'html', select: 'main' },
  },
  {
    name: 'events',
    title: 'Campus events',
    description: 'Upcoming events on the public ASU events calendar: title, when, where and link, optionally narrowed by keywords and campus. Example params: {"keywords": "career fair", "campus": "tempe"}',
    params: {
      keywords: KEYWORDS('what the event is about', 'career fair'),
      campus: {
        description: 'campus', optional: true,
        codes: { tempe: 'Tempe campus', 'downtown phoenix': 'Downtown Phoenix campus', polytechnic: 'Polytechnic campus', 'west valley': 'West', online: 'Online' },
      },
    },
    source: { kind: 'http', base: 'events', path: '/feed-json' },
    answer: { kind: 'parser', parser: 'asu_events', format: 'json' },
    index: false,
  },
  {
    name: 'news',
    title: 'ASU News',
    description: 'The newest ASU News stories, or those on a topic: headline, date, unit, link and summary. Example params: {"keywords": "robotics"}',
    params: { keywords: KEYWORDS('topic to look for', 'robotics') },
    source: { kind: 'http', base: 'news', path: '/feeds-json' },
    answer: { kind: 'parser', parser: 'asu_news', format: 'json' },
  },
  {
    name: 'library_catalog',
    title: 'Library catalog',
    description: 'Books, articles, journals and media in the ASU Library catalog (One Search): title, author, year, type and link. Example params: {"keywords": "deep learning", "type": "books"}',
    params: {
      keywords: { description: 'title, author or subject', example: 'deep learning', max_length: 200 },
      type: { description: 'resource type; left out: all', optional: true, codes: { books: 'books', articles: 'articles', journals: 'journals', images: 'images', scores: 'scores', maps: 'maps', 'sound recordings': 'audios', video: 'videos' } },
    },
    source: {
      kind: 'http', base: 'primo', path: '/primaws/rest/pub/pnxs',
      query: {
        q: 'any,contains,{keywords}', multiFacets: 'facet_rtype,include,{type}', tab: 'LibraryCatalog', scope: 'MyInstitution', vid: '01ASU_INST:01ASU',
        inst: '01ASU_INST', lang: 'en', offset: '0', limit: '10', sort: 'rank', pcAvailability: 'false', skipDelivery: 'Y',
      },
    },
    answer: { kind: 'parser', parser: 'primo_search', format: 'json' },
  },
  {
    name: 'library_hours',
    title: 'Library hours',
    description: 'This week\'s opening hours of the ASU libraries, or of one. Use it for "is Hayden open tonight", "when does Noble close on Friday". Example params: {"library": "hayden"}',
    params: {
      library: {
        description: 'one library; left out: every library', optional: true,
        codes: same(['hayden', 'noble', 'fletcher', 'downtown', 'polytechnic', 'music', 'design', 'law', 'thunderbird']),
      },
    },
    source: { kind: 'http', base: 'libcal', path: '/api_hours_grid.php', query: { format: 'json', weeks: '1', systemTime: '0' } },
    answer: { kind: 'parser', parser: 'libcal_hours', format: 'json' },
  },
  {
    name: 'study_rooms',
    title: 'Study rooms',
    description: 'Bookable study room times at one ASU library on one day. Example params: {"library": "hayden", "date": "tomorrow"}',
    params: {
      library: { description: 'the library', codes: { hayden: '13858', noble: '1702', fletcher: '1703', west: '1707', polytechnic: '1704' } },
      date: DATE,
    },
    source: { kind: 'http', base: 'libcal', path: '/r/accessible/availability', query: { lid: '{library}', gid: '0', zone: '0', space: '0', capacity: '2', date: '{date}' } },
    answer: { kind: 'html', select: 'main' },
    index: false,
  },
  {
    name: 'sports',
    title: 'Sun Devil schedule',
    description: 'The season schedule and results of one Sun Devil team: date, opponent, place, result. Example params: {"sport": "football"}',
    params: {
      sport: {
        description: 'the team',
        codes: {
          football: 'football', 'men\'s basketball': 'mens-basketball', 'women\'s basketball': 'womens-basketball', baseball: 'baseball', softball: 'softball',
          volleyball: 'womens-volleyball', soccer: 'womens-soccer', hockey: 'mens-ice-hockey', wrestling: 'wrestling',
        },
      },
    },
    source: { kind: 'http', base: 'athletics', path: '/sports/{sport}/schedule' },
    answer: { kind: 'parser', parser: 'sidearm_schedule', format: 'html' },
  },
  {
    name: 'sports_news',
    title: 'Sun Devil news',
    description: 'The latest Sun Devil Athletics stories, for one sport or all, optionally with words in the headline. Example params: {"sport": "football", "keywords": "Texas"}',
    params: {
      sport: {
        description: 'the sport; left out: all', optional: true,
        codes: same(['football', 'men\'s basketball', 'women\'s basketball', 'baseball', 'softball', 'volleyball', 'beach volleyball', 'soccer', 'ice hockey', 'wrestling',
          'gymnastics', 'men\'s golf', 'women\'s golf', 'cross country', 'track and field', 'triathlon', 'men\'s tennis', 'women\'s tennis', 'men\'s swimming and diving',
          'women\'s swimming and diving']),
      },
      keywords: KEYWORDS('words in the headline', 'Texas'),
    },
    source: { kind: 'http', base: 'athletics', path: '/rss' },
    answer: { kind: 'parser', parser: 'sidearm_news', format: 'xml' },
  },
  {
    name: 'shuttles',
    title: 'Intercampus shuttles',
    description: 'The ASU intercampus shuttle routes: stops, hours and frequency, for one route or all. Example params: {"route": "tempe-west express"}',
    params: {
      route: { description: 'one route; left out: every route', optional: true, codes: Object.fromEntries(ROUTE_NAMES.map((r) => [r.toLowerCase(), r])) },
    },
    source: { kind: 'http', base: 'cfo', path: '/shuttles' },
    answer: { kind: 'parser', parser: 'shuttle_routes', format: 'html' },
    index: false,
  },
  {
    name: 'campus_map',
    title: 'Campus map',
    description: 'Finds a building or place on the ASU campus map by name or code, with what it is and a map link. Example params: {"place": "Hayden"}',
    params: { place: { description: 'building name, code or place', example: 'Hayden', max_length: 100 } },
    source: {
      kind: 'http', base: 'map', path: '/server/rest/services/CampusLayers/Campus_Map_Web_Layers/MapServer/find',
      query: { searchText: '{place}', layers: '80,98,99,101,102,103,104,105,106,107,108,109,112', searchFields: 'Name,Description', returnGeometry: 'true', sr: '4326', f: 'json' },
    },
    answer: { kind: 'parser', parser: 'arcgis_find', format: 'json' },
  },
  {
    name: 'social_media',
    title: 'ASU on YouTube',
    description: 'The latest posts on the official ASU or Sun Devil Athletics YouTube channel, optionally with words in them. Example params: {"account": "sun devil athletics", "keywords": "football"}',
    params: {
      account: { description: 'the channel', codes: { asu: 'UC027E0kdtyo0h4lLGROg-dA', 'sun devil athletics': 'UC_G-_2azcOV9JBAmqFgERwA' }, default: 'asu' },
      keywords: KEYWORDS('words in the post', 'football'),
    },
    source: { kind: 'http', base: 'youtube', path: '/feeds/videos.xml', query: { channel_id: '{account}' } },
    answer: { kind: 'parser', parser: 'youtube_feed', format: 'xml' },
  },
  {
    name: 'dining',
    title: 'Dining hours',
    description: 'Dining halls and campus restaurants of one ASU campus, with their hours. Example params: {"campus": "tempe"}',
    params: {
      campus: { description: 'the campus', codes: { tempe: 'tempe', 'downtown phoenix': 'downtown-phoenix', polytechnic: 'polytechnic', 'west valley': 'west-valley' } },
    },
    source: { kind: 'http', base: 'dining', path: '/hours-locations/{campus}' },
    answer: { kind: 'html', select: 'main' },
  },
  {
    name: 'jobs',
    title: 'Student jobs',
    description: 'On-campus student employment at ASU: how to find and apply for jobs, federal work-study and pay.',
    params: {},
    source: { kind: 'http', base: 'students', path: '/employment' },
    answer: { kind: 'html', select: 'main' },
  },
  {
    name: 'web',
    title: 'Web search',
    description: 'Searches the web (the deployment\'s search service) when no other query answers: titles, addresses and snippets of the top results. Not indexed.',
    params: { q: { description: 'what to search for', max_length: 300 } },
    source: { kind: 'search', query: '{q}' },
    index: false,
  },
];
