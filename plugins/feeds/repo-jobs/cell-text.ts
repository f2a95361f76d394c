// What a table cell says once its Markdown and HTML are taken away: plain text, the links it holds, and the list of
// locations. The job lists write cells on one line with a small, known set of markup (bold, links, images, <a>,
// <strong>, <br>, <details>), so a few regular expressions do; no HTML parser is needed.

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const LINE_BREAK = /<\/?br\s*\/?>/gi;

/** Cell text without markup, whitespace collapsed; `<br>` becomes a space. */
export function plainText(cell: string): string {
  const text = cell
    .replace(LINE_BREAK, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '') // images say "Apply"/"Simplify", not content
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, '')
    .replace(/(\*\*|__|`)/g, '');
  return decodeEntities(text).replace(/\s+/g, ' ').trim();
}

/** Every http(s) link of a cell, HTML `href` or Markdown `(url)`, in the order they appear. */
export function cellLinks(cell: string): string[] {
  const found: { at: number; url: string }[] = [];
  for (const m of cell.matchAll(/<a\s[^>]*?href\s*=\s*(["'])(.*?)\1/gi)) found.push({ at: m.index, url: decodeEntities(m[2]) });
  for (const m of cell.matchAll(/\]\(\s*<?(https?:\/\/[^)\s>]+)>?\s*\)/gi)) found.push({ at: m.index, url: m[1] });
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => f.url.trim())
    .filter((url) => /^https?:\/\//i.test(url));
}

/**
 * The locations of a cell. A `<details>` list counts only what follows its `<summary>` (the summary says "5
 * locations"); entries are separated by `<br>` in any spelling or by semicolons. Commas are not separators: they
 * sit inside one location ("Austin, TX").
 */
export function cellLocations(cell: string): string[] {
  const details = /<details[^>]*>[\s\S]*?<\/summary>([\s\S]*?)(?:<\/details>|$)/i.exec(cell);
  const list = details ? details[1] : cell;
  return list
    .split(/<\/?br\s*\/?>|;/i)
    .map(plainText)
    .filter((location) => location !== '');
}
