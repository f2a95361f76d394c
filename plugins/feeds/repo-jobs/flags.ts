// The markers the lists put in a row, read as booleans, and the text without them.

const CLOSED = '🔒';
const NO_SPONSORSHIP = '🛂';
const CITIZENSHIP = '🇺🇸';
/** Markers removed from names: the three flags, plus 🎓 (advanced degree) and 🔥 (a list's "hot" company). */
const MARKERS = /🔒|🛂|🇺🇸|🎓|🔥/gu;

export interface RowFlags {
  closed: boolean;
  noSponsorship: boolean;
  citizenshipRequired: boolean;
}

/**
 * Flags anywhere in the row, except the word "Closed", which counts only in the link cell ("Closed Captioning
 * Engineer" is a role).
 */
export function rowFlags(cells: string[], linkCell: string): RowFlags {
  const row = cells.join('|');
  return {
    closed: row.includes(CLOSED) || /\bclosed\b/i.test(linkCell),
    noSponsorship: row.includes(NO_SPONSORSHIP),
    citizenshipRequired: row.includes(CITIZENSHIP),
  };
}

export function withoutMarkers(text: string): string {
  return text.replace(MARKERS, '').replace(/\s+/g, ' ').trim();
}
