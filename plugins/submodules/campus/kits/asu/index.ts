// The Arizona State University kit of the campus submodule (the built-in default, SUBMODULES_CAMPUS_KIT=asu): ASU's
// public pages for the org's knowledge, live queries against ASU's sites and APIs, and the Canvas and ASU sign-in
// addresses. Declarative content (bases.ts, pages.ts, queries.ts) plus the small code it names: the parsers of
// parsers/ and the parameter transforms of transforms.ts. README.md says what was checked against real answers.
import { defineSubmodule } from 'quad-submodule-kit';
import { bases } from './bases.js';
import { pages } from './pages.js';
import { queries } from './queries.js';
import { arizonaDate, asuTerm } from './transforms.js';
import { sidearmNews, sidearmSchedule } from './parsers/athletics.js';
import { arcgisFind } from './parsers/campus-map.js';
import { classSearch, courseCatalog } from './parsers/class-search.js';
import { asuEvents, asuNews } from './parsers/feeds.js';
import { libcalHours, primoSearch } from './parsers/library.js';
import { shuttleRoutes } from './parsers/shuttles.js';
import { youtubeFeed } from './parsers/youtube.js';

export default defineSubmodule({
  name: 'campus',
  title: 'Campus',
  description: 'Arizona State University: its public pages in the org\'s knowledge (calendar, registration, tuition, housing, health, parking, campuses…), '
    + 'live answers from its sites (class search, catalog, scholarships, events, news, library catalog and hours, study rooms, Sun Devil sports, '
    + 'shuttles, campus map, YouTube, dining, jobs, web search), and the Canvas and ASU sign-in addresses.',
  readers: { pages: ['knowledge'], queries: ['agents'], links: ['accounts'] },
  bases,
  pages,
  queries,
  links: { course_management: '{canvas}/', sign_in: '{sso}/cas/login' },
}, {
  parsers: {
    class_search: classSearch, course_catalog: courseCatalog, asu_events: asuEvents, asu_news: asuNews, primo_search: primoSearch,
    libcal_hours: libcalHours, sidearm_schedule: sidearmSchedule, sidearm_news: sidearmNews, shuttle_routes: shuttleRoutes,
    arcgis_find: arcgisFind, youtube_feed: youtubeFeed,
  },
  transforms: { asu_term: asuTerm, arizona_date: arizonaDate },
});
