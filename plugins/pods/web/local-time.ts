// A datetime-local input's value is a wall-clock time with no zone; the sessions route wants ISO 8601 with one. The
// browser's zone is the officer's: the time is written back from the instant it names, with that instant's offset,
// so a time in a daylight-saving gap comes out as the real instant the browser moved it to.

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `2030-06-01T18:00` in the browser's zone → `2030-06-01T18:00:00+02:00`; null when it is no date and time. */
export function zonedIso(local: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(local)) return null;
  const at = new Date(local); // without a zone, ECMAScript reads a date-time as local time
  if (Number.isNaN(at.getTime())) return null;
  const east = -at.getTimezoneOffset();
  const zone = `${east < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(east) / 60))}:${pad(Math.abs(east) % 60)}`;
  const date = `${pad(at.getFullYear(), 4)}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
  return `${date}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}${zone}`;
}

/** The browser's time zone, to say which clock the form reads. */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
