// The Discord message an item becomes: one embed (EXTERNAL.md's limits: title 256, field values 1024), no mentions.
import type { HackathonData, JobData, ListingItem } from './listing.js';

const JOB_COLOR = 0x2f80ed;
const HACKATHON_COLOR = 0xf2994a;

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const day = (iso: string) => new Date(iso).toUTCString().slice(0, 16);

function jobEmbed(item: ListingItem, data: JobData, label: string) {
  const flags = [data.no_sponsorship && 'No sponsorship', data.citizenship_required && 'U.S. citizenship required'].filter(Boolean).join(' · ');
  return {
    title: cut(`New ${label}: ${data.company} — ${data.role}`, 256),
    url: item.url,
    color: JOB_COLOR,
    fields: [
      { name: 'Location', value: cut(data.locations.join(' · ') || 'Not given', 1024), inline: true },
      { name: 'Posted', value: data.posted, inline: true },
      ...(flags ? [{ name: 'Note', value: flags, inline: false }] : []),
    ],
  };
}

function hackathonEmbed(item: ListingItem, data: HackathonData) {
  const where = data.online === true ? (data.location ? `${data.location} and online` : 'Online') : data.location ?? 'Not given';
  return {
    title: cut(`New hackathon: ${data.name}`, 256),
    url: item.url,
    color: HACKATHON_COLOR,
    fields: [
      { name: 'When', value: data.ends_at ? `${day(data.starts_at)} – ${day(data.ends_at)}` : day(data.starts_at), inline: true },
      { name: 'Where', value: cut(where, 1024), inline: true },
    ],
  };
}

/** The webhook body for one item; `label` is a repo_jobs feed's word for its posts. */
export function itemMessage(item: ListingItem, label: string) {
  const embed = item.data.kind === 'repo_jobs' ? jobEmbed(item, item.data, label) : hackathonEmbed(item, item.data);
  return { embeds: [embed], allowed_mentions: { parse: [] } };
}
