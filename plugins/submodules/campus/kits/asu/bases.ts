// The ASU sites the kit reads, by name: the templates of pages, queries and links name them ({registrar}/…), and a
// deployment may point any of them elsewhere (SUBMODULES_BASE_URLS=campus.<base>=<URL>, a mirror or a test fake).
// `title` is how a 502 names the source when its answer can no longer be read.
import type { BaseDecl } from 'quad-submodule-kit';

export const bases: Record<string, BaseDecl> = {
  www: { url: 'https://www.asu.edu', title: 'ASU\'s main site', description: 'the university\'s main site: facts, figures and rankings' },
  registrar: { url: 'https://registrar.asu.edu', title: 'the Registrar', description: 'University Registrar Services: academic calendar, exams, drop/add, transcripts' },
  tuition: { url: 'https://tuition.asu.edu', title: 'Tuition and financial aid', description: 'Student Business Services and Financial Aid: deadlines, tuition and fees, FAFSA' },
  housing: { url: 'https://housing.asu.edu', title: 'University Housing', description: 'University Housing: first-year housing, FAQs' },
  eoss: { url: 'https://eoss.asu.edu', title: 'Educational Outreach and Student Services', description: 'health, counseling, student unions, accessibility' },
  cfo: { url: 'https://cfo.asu.edu', title: 'Business and Finance (parking, transit, police)', description: 'Parking and Transit Services, ASU Police; the intercampus shuttle page' },
  tech: { url: 'https://tech.asu.edu', title: 'Enterprise Technology', description: 'IT services: Wi-Fi (eduroam)' },
  campus: { url: 'https://campus.asu.edu', title: 'ASU campuses', description: 'the campus pages: Tempe, Downtown Phoenix, Polytechnic, West Valley' },
  issc: { url: 'https://issc.asu.edu', title: 'International Students and Scholars Center', description: 'F-1 and J-1 student status' },
  career: { url: 'https://career.eoss.asu.edu', title: 'Career Services', description: 'career and internship fairs' },
  students: { url: 'https://students.asu.edu', title: 'ASU student services', description: 'advising and student employment (the jobs query)' },
  library: { url: 'https://lib.asu.edu', title: 'ASU Library', description: 'ASU Library pages' },
  libcal: { url: 'https://asu.libcal.com', title: 'ASU Library (LibCal)', description: 'the library\'s LibCal: opening hours (JSON) and study room availability' },
  primo: { url: 'https://search.lib.asu.edu', title: 'ASU Library One Search', description: 'the library catalog (Primo VE search API)' },
  class_search: { url: 'https://eadvs-cscc-catalog-api.apps.asu.edu', title: 'ASU Class Search', description: 'the JSON API behind catalog.apps.asu.edu: class sections and catalog courses' },
  scholarships: { url: 'https://onsa.asu.edu', title: 'ASU scholarship search', description: 'the Office of National Scholarship Advisement\'s scholarship search' },
  events: { url: 'https://asuevents.asu.edu', title: 'ASU Events', description: 'the public events calendar and its JSON feed' },
  news: { url: 'https://asunow.asu.edu', title: 'ASU News', description: 'ASU News and its JSON feed' },
  athletics: { url: 'https://thesundevils.com', title: 'Sun Devil Athletics', description: 'schedules, results and the news feed of Sun Devil Athletics' },
  map: { url: 'https://gisprodportal.asu.edu', title: 'the ASU campus map', description: 'the campus map\'s ArcGIS REST services' },
  youtube: { url: 'https://www.youtube.com', title: 'YouTube', description: 'the channel feeds of ASU and Sun Devil Athletics' },
  dining: { url: 'https://sundevilhospitality.asu.edu', title: 'Sun Devil Hospitality', description: 'dining: hours and locations, meal plans' },
  canvas: { url: 'https://canvas.asu.edu', description: 'Canvas, the course-management system' },
  sso: { url: 'https://weblogin.asu.edu', description: 'ASU sign-in (CAS)' },
};
