// The ASU Library: opening hours from LibCal's hours grid (api_hours_grid.php?format=json: { locations: [{ lid, name,
// category, parent_lid, weeks: [{ Sunday: { date, rendered, times: { status } }, … }] }] }, the shape LibCal's
// hours widgets read) and the catalog from Primo VE's search API (primaws/rest/pub/pnxs: { info: { total }, docs:
// [{ pnx: { display: { title, creator, contributor, creationdate, type, publisher }, control: { recordid } } }] }).
import { jsonOf, type AnswerParser } from 'quad-submodule-kit';
import { joined, line, list, record, required } from './text.js';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MAX_RECORDS = 10;

function week(location: Record<string, unknown>): string[] {
  const days = record(list(location.weeks)[0]);
  return DAYS.flatMap((day) => {
    const d = record(days[day]);
    if (!Object.keys(d).length) return [];
    const status = line(record(d.times).status);
    const hours = line(d.rendered) || (status === 'closed' ? 'Closed' : status === '24hours' ? '24 hours' : 'not set');
    return [`  ${day} ${line(d.date)}: ${hours}`];
  });
}

export const libcalHours: AnswerParser = (input) => {
  const locations = required(jsonOf(input), 'locations').map(record);
  const wanted = input.sent.library?.toLowerCase();
  // Departments (a parent_lid) are shown only when asked for by name: the libraries themselves answer "is it open".
  const shown = locations.filter((l) => (wanted ? line(l.name).toLowerCase().includes(wanted) : !l.parent_lid));
  if (shown.length === 0) return wanted ? `No ASU Library location matches "${input.params.library}".` : 'LibCal lists no library.';
  return shown.map((l) => [line(l.name), ...week(l)].join('\n')).join('\n\n');
};

/** The first value of a PNX field (a list), without Primo's subfields ("Goodfellow, Ian$$QGoodfellow, Ian"). */
const first = (value: unknown) => line(list(value)[0] ?? value).split('$$')[0]!.trim();

export const primoSearch: AnswerParser = (input) => {
  const answer = jsonOf(input);
  const docs = required(answer, 'docs');
  const total = record(record(answer).info).total;
  if (docs.length === 0) return `The ASU Library catalog has nothing for "${input.params.keywords}".`;
  const origin = new URL(input.url).origin;
  const lines = docs.slice(0, MAX_RECORDS).map((d) => {
    const pnx = record(record(d).pnx);
    const display = record(pnx.display);
    const id = first(record(pnx.control).recordid);
    return joined([
      first(display.title),
      first(display.creator) || first(display.contributor),
      first(display.creationdate),
      first(display.type),
      first(display.publisher),
      id && `${origin}/discovery/fulldisplay?docid=${encodeURIComponent(id)}&vid=01ASU_INST:01ASU`,
    ]);
  });
  return [`${typeof total === 'number' ? total : docs.length} records in the ASU Library catalog; the first ${lines.length}:`, ...lines].join('\n');
};
