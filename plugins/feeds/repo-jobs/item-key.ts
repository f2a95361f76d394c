// The feed's item key for a job: what makes two rows the same posting, so a run never posts one twice.
import { createHash } from 'node:crypto';
import { cleanLink } from './links.js';

export interface JobIdentity {
  company: string;
  role: string;
  locations: string[];
  link: string;
}

const normal = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * sha256 (hex, first 32 characters) of the lowercase company, role and first location and the link without
 * tracking parameters. The link keeps its case: paths and ids on job boards are case-sensitive.
 */
export function jobItemKey(job: JobIdentity): string {
  const parts = [normal(job.company), normal(job.role), normal(job.locations[0] ?? ''), cleanLink(job.link)];
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);
}
