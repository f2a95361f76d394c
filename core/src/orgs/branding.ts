// Branding (spec: logo_url and website_url are https URLs, accent_color is #RRGGBB; an empty string or null
// removes a value). Kept in the org config under `branding`.
import { Type, type Static } from '@sinclair/typebox';
import { badRequest } from '../http/errors.js';

export const BRANDING_KEY = 'branding';

export const Branding = Type.Object({
  logo_url: Type.Union([Type.String(), Type.Null()]),
  accent_color: Type.Union([Type.String(), Type.Null()]),
  website_url: Type.Union([Type.String(), Type.Null()]),
});
export type Branding = Static<typeof Branding>;

export const BrandingUpdate = Type.Partial(Type.Object({
  logo_url: Type.Union([Type.String({ maxLength: 2048 }), Type.Null()]),
  accent_color: Type.Union([Type.String({ maxLength: 7 }), Type.Null()]),
  website_url: Type.Union([Type.String({ maxLength: 2048 }), Type.Null()]),
}), { additionalProperties: false });

const EMPTY: Branding = { logo_url: null, accent_color: null, website_url: null };

function httpsUrl(field: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest(`${field} must be an https URL`, 'invalid_url', { field });
  }
  if (url.protocol !== 'https:' || !url.hostname || url.username || url.password) {
    throw badRequest(`${field} must be an https URL`, 'invalid_url', { field });
  }
  return url.toString();
}

/** The branding after applying an update: fields left out stay, empty strings and nulls remove. */
export function applyBranding(current: Partial<Branding> | undefined, update: Static<typeof BrandingUpdate>): Branding {
  const next: Branding = { ...EMPTY, ...current };
  for (const field of ['logo_url', 'website_url'] as const) {
    if (!(field in update)) continue;
    const value = update[field]?.trim();
    next[field] = value ? httpsUrl(field, value) : null;
  }
  if ('accent_color' in update) {
    const value = update.accent_color?.trim();
    if (value && !/^#[0-9a-fA-F]{6}$/.test(value)) throw badRequest('accent_color must be a color like #1A2B3C', 'invalid_color', { field: 'accent_color' });
    next.accent_color = value ? value.toUpperCase() : null;
  }
  return next;
}

export function readBranding(stored: Partial<Branding> | undefined): Branding {
  return { ...EMPTY, ...stored };
}
