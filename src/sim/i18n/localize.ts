/**
 * Accept-Language on market responses (interface-spec): the first supported language of the
 * header (by q weight, then order) chooses Spanish or Portuguese, with a regional overlay when the
 * tag names a region the overlays know (es-MX, pt-PT); anything else, or no header, is English.
 * Translates a rendered market's text fields (title, subtitle, yes/no subtitles, rules) in place;
 * a text without a translation stays English. Never changes numbers or ids.
 */

import { REGIONAL_OVERLAYS, TRANSLATIONS, type BaseLanguage } from './market-translations.ts';

export interface Locale {
  readonly base: BaseLanguage;
  /** Lower-case tag of a known regional overlay, or null. */
  readonly region: string | null;
}

/** Header bytes considered: an input bound (real headers are far shorter). */
const HEADER_CHARS_MAX = 512;
const RANGES_MAX = 32;
const TEXT_FIELDS = ['title', 'subtitle', 'yes_sub_title', 'no_sub_title', 'rules_primary', 'rules_secondary'] as const;

/** The locale an Accept-Language header asks for; null = English. */
export function parseAcceptLanguage(header: string): Locale | null {
  if (header === '' || header.length > HEADER_CHARS_MAX) return null;
  const ranges: Array<{ tag: string; q: number; order: number }> = [];
  const parts = header.split(',');
  for (let i = 0; i < parts.length && i < RANGES_MAX; i++) {
    const [rawTag, ...params] = parts[i].trim().split(';');
    let q = 1;
    for (const param of params) {
      const [name, value] = param.trim().split('=');
      if (name === 'q') q = Number.parseFloat(value ?? '');
    }
    if (!Number.isFinite(q) || q <= 0) continue;
    ranges.push({ tag: rawTag.trim().toLowerCase(), q, order: i });
  }
  ranges.sort((a, b) => b.q - a.q || a.order - b.order);
  for (const range of ranges) {
    const base = range.tag.split('-')[0];
    if (base === 'en') return null; // English asked for before any supported translation
    if (base !== 'es' && base !== 'pt') continue;
    return { base, region: REGIONAL_OVERLAYS[range.tag] === undefined ? null : range.tag };
  }
  return null;
}

function translate(text: string, locale: Locale): string {
  const overlay = locale.region === null ? undefined : REGIONAL_OVERLAYS[locale.region]?.[text];
  return overlay ?? TRANSLATIONS[locale.base][text] ?? text;
}

/** Translates a rendered market's text fields in place. */
export function localizeMarket(market: Record<string, unknown>, locale: Locale | null): Record<string, unknown> {
  if (locale === null) return market;
  for (const field of TEXT_FIELDS) {
    const value = market[field];
    if (typeof value === 'string' && value !== '') market[field] = translate(value, locale);
  }
  return market;
}
