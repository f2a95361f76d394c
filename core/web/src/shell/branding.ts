// The org's look: its accent color (primary buttons, the org initial) or the dashboard's gray when it has none.
import type { Branding } from '../sdk/org.js';

export const UNBRANDED = '#6B7280';

export const brandingPath = (org: string) => `/api/dashboard/${org}/branding`;

export function accentOf(branding: Branding | null | undefined): string {
  return branding?.accent_color && /^#[0-9A-Fa-f]{6}$/.test(branding.accent_color) ? branding.accent_color : UNBRANDED;
}

/** Black or white, whichever reads better on the color (WCAG relative luminance). */
export function contrastOn(hex: string): string {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  return luminance > 0.179 ? '#111827' : '#FFFFFF';
}

/** The org's initial: the first letter of its name. */
export const initialOf = (name: string) => (name.trim().charAt(0) || '?').toUpperCase();
