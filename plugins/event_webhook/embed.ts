// The Discord message an event becomes: one embed (title, message, simple data fields, the org and kind in the
// footer, the event's time), with mentions switched off so an event text can never ping anyone.
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const RED = 0xED4245;
const GREEN = 0x57F287;
const BLURPLE = 0x5865F2;

export interface EventForMessage { kind: string; title: string; message: string; data: Record<string, unknown>; created_at: string }

function color(kind: string): number {
  if (kind.startsWith('error.') || /\.(failed|error|down)$/.test(kind)) return RED;
  if (/[._](created|joined|succeeded|deployed|up)$/.test(kind)) return GREEN;
  return BLURPLE;
}

/** Up to 10 fields from the event's data: strings, numbers and booleans only. */
function fields(data: Record<string, unknown>) {
  return Object.entries(data)
    .filter(([, v]) => (typeof v === 'string' && v.trim() !== '') || typeof v === 'number' || typeof v === 'boolean')
    .slice(0, 10)
    .map(([k, v]) => ({ name: cut(k, 256), value: cut(String(v), 1024), inline: true }));
}

export function eventMessage(event: EventForMessage, org: { name: string }): Record<string, unknown> {
  const embed: Record<string, unknown> = {
    title: cut(event.title || event.kind, 256),
    color: color(event.kind),
    footer: { text: cut(`${org.name} · ${event.kind}`, 2048) },
    timestamp: event.created_at,
  };
  if (event.message) embed.description = cut(event.message, 4096);
  const f = fields(event.data ?? {});
  if (f.length) embed.fields = f;
  return { embeds: [embed], allowed_mentions: { parse: [] } };
}

export function testMessage(webhook: { name: string; events: string[] }, org: { name: string }): Record<string, unknown> {
  return eventMessage({
    kind: 'event_webhook.test',
    title: 'Test message from Quad',
    message: `The webhook "${webhook.name}" of ${org.name} will post these events here: ${webhook.events.join(', ') || 'none selected'}.`,
    data: {},
    created_at: new Date().toISOString(),
  }, org);
}
