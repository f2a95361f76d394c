// The ASU Class Search API (eadvs-cscc-catalog-api.apps.asu.edu, the JSON behind catalog.apps.asu.edu):
// `search/classes` answers { classes: [{ CLAS: { …PeopleSoft fields }, seatInfo, DAYLIST, LOCATIONBUILDING, … }],
// total: { value } } and `search/courses` a list of catalog courses ({ SUBJECT, CATALOGNBR, COURSETITLELONG, DESCRLONG,
// UNITSMAXIMUM, DESCR4 }). The field names are those public clients of the API read (see the kit's README); both
// parsers show one line per section or course, at most MAX_SECTIONS / MAX_COURSES.
import { AnswerShapeError, jsonOf, type AnswerParser } from 'quad-submodule-kit';
import { joined, line, list, record, required } from './text.js';

const MAX_SECTIONS = 60;
const MAX_COURSES = 20;
const SESSIONS: Record<string, string> = { A: 'session A (first half)', B: 'session B (second half)', DYN: 'dynamic dates' };

const units = (clas: Record<string, unknown>) => {
  const min = line(clas.UNITSMINIMUM);
  const max = line(clas.UNITSMAXIMUM) || min;
  if (!max) return '';
  return `${min && min !== max ? `${min}-${max}` : max} credit${max === '1' ? '' : 's'}`;
};

/** "MW 10:30 AM-11:45 AM" from a section's days and times (lists when it meets in several patterns). */
function meets(row: Record<string, unknown>, clas: Record<string, unknown>): string {
  const asList = (v: unknown) => (Array.isArray(v) ? v.map((x) => line(x)) : [line(v)]).filter(Boolean);
  const days = asList(row.DAYLIST ?? clas.DAYLIST);
  const starts = asList(clas.STARTTIMES ?? clas.STARTTIME);
  const ends = asList(clas.ENDTIMES ?? clas.ENDTIME);
  const times = starts.map((s, i) => (ends[i] ? `${s}-${ends[i]}` : s));
  const patterns = Math.max(days.length, times.length);
  return Array.from({ length: patterns }, (_, i) => joined([days[i], times[i]], ' ')).filter(Boolean).join('; ');
}

function place(row: Record<string, unknown>, clas: Record<string, unknown>): string {
  if (line(clas.LOCATION).toUpperCase() === 'ASUONLINE' || line(clas.CAMPUS).toUpperCase() === 'ASUONLINE') return 'ASU Online';
  const building = record(list(row.LOCATIONBUILDING)[0]);
  return line(building.NAME) || joined([line(clas.CAMPUS), line(clas.DESCR1)], ' ');
}

function seats(row: Record<string, unknown>, clas: Record<string, unknown>): string {
  const info = record(row.seatInfo);
  const cap = Number(info.ENRL_CAP ?? clas.ENRLCAP);
  const taken = Number(info.ENRL_TOT ?? clas.ENRLTOT);
  const open = line(clas.ENRLSTAT) === 'O';
  if (!Number.isFinite(cap) || !Number.isFinite(taken)) return open ? 'open' : 'closed';
  return `${Math.max(cap - taken, 0)} of ${cap} seats open${open ? '' : ' (closed)'}`;
}

export const classSearch: AnswerParser = (input) => {
  const answer = jsonOf(input);
  const rows = required(answer, 'classes');
  const total = record(record(answer).total).value ?? record(answer).total;
  const term = input.params.term ?? '';
  if (rows.length === 0) return `No class sections match in ${term}.`;
  const shown = rows.slice(0, MAX_SECTIONS).map((r) => {
    const row = record(r);
    const clas = record(row.CLAS);
    if (!Object.keys(clas).length) throw new AnswerShapeError('a class without its "CLAS" fields');
    const course = line(row.SUBJECTNUMBER) || joined([line(clas.SUBJECT), line(clas.CATALOGNBR)], ' ');
    const instructors = list(clas.INSTRUCTORSLIST).map((i) => line(i)).filter(Boolean).join(', ');
    return joined([
      `${course} ${line(clas.COURSETITLELONG) || line(clas.TITLE)}`.trim(),
      line(clas.CLASSNBR) && `class #${line(clas.CLASSNBR)}`,
      meets(row, clas) || 'no set meeting time',
      place(row, clas),
      instructors || 'instructor TBA',
      units(clas),
      seats(row, clas),
      SESSIONS[line(clas.SESSIONCODE)],
    ]);
  });
  const count = typeof total === 'number' ? total : rows.length;
  const head = `${count} class section${count === 1 ? '' : 's'} in ${term}${count > shown.length ? ` (the first ${shown.length} shown)` : ''}; enroll with the class number in My ASU.`;
  return [head, ...shown].join('\n');
};

export const courseCatalog: AnswerParser = (input) => {
  const answer = jsonOf(input);
  if (!Array.isArray(answer)) throw new AnswerShapeError('not a list of courses');
  if (answer.length === 0) return `No catalog course matches "${input.params.keywords}".`;
  return answer.slice(0, MAX_COURSES).map((c) => {
    const course = record(c);
    const head = joined([
      `${joined([line(course.SUBJECT), line(course.CATALOGNBR)], ' ')} ${line(course.COURSETITLELONG)}`.trim(),
      units(course),
      line(course.DESCR4) && `general studies: ${line(course.DESCR4)}`,
    ]);
    const about = line(course.DESCRLONG, 600);
    return about ? `${head}\n${about}` : head;
  }).join('\n\n');
};
