// ASU's parameter rules the declarative form cannot say. A term as students write it becomes ASU's term code (the
// seed's rule, asusoda/platform packs/asu/params.py, confirmed by the class search API's `term` values: 2, the year's
// last two digits, then 1 spring, 4 summer, 7 fall — "Fall 2026" is 2267); a date is a calendar day in Arizona time
// (America/Phoenix, UTC-7 all year), where "today" and "tomorrow" are the query's own day.
import { ParamRefused, type ParamTransform } from 'quad-submodule-kit';

const SEASON_DIGIT: Record<string, string> = { spring: '1', summer: '4', fall: '7' };

/** "Fall 2026" → "2267", "spring 2025" → "2251". */
export const asuTerm: ParamTransform = (value) => {
  const parts = value.trim().split(/\s+/);
  const digit = parts.length === 2 ? SEASON_DIGIT[parts[0]!.toLowerCase()] : undefined;
  const year = parts[1] ?? '';
  if (!digit || !/^\d{4}$/.test(year)) throw new ParamRefused('must be a term like "Fall 2026" (Spring, Summer or Fall, then the four-digit year)');
  if (!year.startsWith('20')) throw new ParamRefused(`has the year ${year}; ASU term codes cover 2000 to 2099`);
  return `2${year.slice(2)}${digit}`;
};

/** The calendar day of a moment in Arizona, as YYYY-MM-DD. */
export function arizonaDay(moment: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Phoenix', year: 'numeric', month: '2-digit', day: '2-digit' }).format(moment);
}

/** "today", "tomorrow" (Arizona time) or a real calendar day YYYY-MM-DD, as YYYY-MM-DD. */
export const arizonaDate: ParamTransform = (value, { now }) => {
  const word = value.toLowerCase();
  if (word === 'today') return arizonaDay(now);
  if (word === 'tomorrow') return arizonaDay(new Date(now.getTime() + 24 * 3600 * 1000));
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const day = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!day || day.toISOString().slice(0, 10) !== value) throw new ParamRefused('must be a day like 2026-09-14 (a real date), today or tomorrow');
  return value;
};
