// What a sweep across orgs (services.acrossOrgs) found, handed back to each org's own handle: the schedule's due pods
// and lost creates are read across orgs in one short transaction, then worked on org by org on the ordinary path
// (row-level security), where the provider calls happen, never inside the cross-org transaction.
import type { AcrossOrgsDb, OrgDb } from '@quad/core';

/** One org's share of a sweep's rows, with the org's handle. */
export interface OrgRows<R> { db: OrgDb; rows: R[] }

/** Rows of many orgs grouped by org (in the order each org first appears), each group with its org's handle. */
export function groupByOrg<R extends { organization_id: number }>(all: AcrossOrgsDb, rows: readonly R[]): OrgRows<R>[] {
  const groups = new Map<number, OrgRows<R>>();
  for (const row of rows) {
    let group = groups.get(row.organization_id);
    if (!group) groups.set(row.organization_id, (group = { db: all.forOrg(row.organization_id), rows: [] }));
    group.rows.push(row);
  }
  return [...groups.values()];
}
