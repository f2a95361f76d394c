// Rate limits count in UTC windows (minute, hour, day). A test that counts calls within one minute must not straddle
// a minute boundary, or its counts start again halfway: wait, before it starts, until the minute has room left.

/** Resolve once the current UTC minute has at least `needMs` left (at once when it has). */
export async function roomInMinute(needMs = 10_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}
