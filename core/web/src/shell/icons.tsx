// The sidebar's icons: simple 24×24 line drawings. A page names one (manifest `icon`); an unknown name or none
// shows the title's first letter.
import type { ReactNode } from 'react';

/** Points of a five-pointed star around (12, 12). */
const star = Array.from({ length: 10 }, (_, i) => {
  const angle = (Math.PI / 5) * i - Math.PI / 2;
  const r = i % 2 ? 4 : 9;
  return `${(12 + r * Math.cos(angle)).toFixed(1)},${(12.5 + r * Math.sin(angle)).toFixed(1)}`;
}).join(' ');

const DRAWINGS: Record<string, ReactNode> = {
  home: <><path d="M3 11 12 4l9 7" /><path d="M5 10v10h14V10" /><path d="M10 20v-6h4v6" /></>,
  compass: <><circle cx="12" cy="12" r="9" /><path d="m15.5 8.5-2 5-5 2 2-5z" /></>,
  activity: <path d="M3 12h4l3-7 4 14 3-7h4" />,
  key: <><circle cx="8" cy="12" r="4" /><path d="M12 12h9M18 12v3M21 12v3" /></>,
  sliders: <><path d="M4 6h16M4 12h16M4 18h16" /><circle cx="9" cy="6" r="2" /><circle cx="15" cy="12" r="2" /><circle cx="7" cy="18" r="2" /></>,
  shield: <path d="M12 3 4 6v6c0 5 3.5 8 8 9 4.5-1 8-4 8-9V6z" />,
  star: <polygon points={star} />,
  bag: <><path d="M5 8h14l-1 12H6z" /><path d="M9 8V6a3 3 0 0 1 6 0v2" /></>,
  calendar: <><rect x="4" y="5" width="16" height="15" rx="2" /><path d="M4 10h16M9 3v4M15 3v4" /></>,
  code: <path d="m9 7-5 5 5 5M15 7l5 5-5 5" />,
  server: <><rect x="4" y="4" width="16" height="7" rx="1" /><rect x="4" y="13" width="16" height="7" rx="1" /><path d="M8 7.5h.01M8 16.5h.01" /></>,
  bell: <><path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4z" /><path d="M10 20a2 2 0 0 0 4 0" /></>,
  book: <><path d="M4 5a2 2 0 0 1 2-2h14v16H6a2 2 0 0 0-2 2z" /><path d="M4 21V5" /></>,
  users: <><circle cx="9" cy="8" r="3" /><path d="M3 20a6 6 0 0 1 12 0" /><circle cx="17" cy="9" r="2.5" /><path d="M16 14a5 5 0 0 1 5 5" /></>,
  chart: <path d="M4 20V10M10 20V4M16 20v-7M22 20H2" />,
  link: <><path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1" /><path d="M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" /></>,
  globe: <><circle cx="12" cy="12" r="9" /><ellipse cx="12" cy="12" rx="4" ry="9" /><path d="M3 12h18" /></>,
  smile: <><circle cx="12" cy="12" r="9" /><path d="M8 14a5 5 0 0 0 8 0" /><path d="M9 9.5h.01M15 9.5h.01" /></>,
  trophy: <><path d="M8 4h8v5a4 4 0 0 1-8 0z" /><path d="M8 6H5a3 3 0 0 0 3 4M16 6h3a3 3 0 0 1-3 4M12 13v4M8 20h8" /></>,
  bot: <><rect x="5" y="8" width="14" height="11" rx="2" /><path d="M12 4v4M9 13h.01M15 13h.01" /></>,
};

export const ICON_NAMES: readonly string[] = Object.keys(DRAWINGS);

/** The icon `name`, or the first letter of `title` when there is no such icon. Decorative: the link has the text. */
export function Icon({ name, title }: { name: string | null; title: string }) {
  const drawing = name ? DRAWINGS[name] : undefined;
  if (!drawing) return <span className="q-icon q-icon-letter" aria-hidden="true">{title.charAt(0).toUpperCase()}</span>;
  return (
    <svg className="q-icon" viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" strokeWidth="1.8"
      strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      {drawing}
    </svg>
  );
}
