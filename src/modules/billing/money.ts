/**
 * Money (spec 2.10): euro amounts travel as JSON numbers with at most two decimals
 * and are stored as numeric(14, 2); every sum, difference and comparison in the code is done
 * on integer cents, never on floats, and turned back into euro only for output or storage.
 */
import type { ValidationIssue } from '../../core/errors.js';

/** The only currency: every resource with an amount says so. */
export const CURRENCY = 'EUR' as const;

/** Integer cents of a euro amount that has at most two decimals (checked by `centsIssue`). */
export function toCents(euro: number | string): number {
  return Math.round(Number(euro) * 100);
}

/** Euro for output or storage: an exact decimal of two places (no float sum ever made it). */
export function toEuro(cents: number): number {
  return cents / 100;
}

/**
 * Whether a JSON number has at most two decimals (1.1 * 100 is 110.00000000000001: tolerated).
 * A number that is not 0 but rounds to 0 cents (5e-324) has more: it would be stored as 0.00,
 * which a positive amount's CHECK refuses (found by the money fuzz, test/proof/fuzz.test.ts).
 */
export function hasCents(euro: number): boolean {
  const cents = Math.round(euro * 100);
  return Math.abs(euro * 100 - cents) < 1e-6 && (cents !== 0 || euro === 0);
}

export function centsIssue(path: string, euro: number | undefined | null): ValidationIssue[] {
  return euro === undefined || euro === null || hasCents(euro) ? [] : [{ path, message: 'al massimo due decimali' }];
}

export function sumCents(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0);
}

/** VAT of a net amount in cents at a percent rate (e.g. 22 or 10.5), rounded half up to the cent. */
export function vatCents(netCents: number, ratePercent: number): number {
  // rate in hundredths of a percent, so 10.5 % is the integer 1050: one rounding only.
  const rate = Math.round(ratePercent * 100);
  return Math.round((netCents * rate) / 10000);
}

/** The largest amount a `numeric(14, 2)` column holds, in cents: 999,999,999,999.99 euro. */
const MAX_CENTS = 99_999_999_999_999;

/**
 * A computed amount (a sum, a total) that would not fit its column: `400` naming the field it
 * comes from, never the database's overflow (a 500). Inputs are bounded by their schemas
 * (100,000,000 euro, quantity 1,000); their sums are bounded here.
 */
export function boundIssue(path: string, cents: number): ValidationIssue[] {
  return cents > MAX_CENTS ? [{ path, message: 'il totale supera 999.999.999.999,99 euro' }] : [];
}

/** Italian stamp duty (marca da bollo): 2.00 on an invoice whose VAT-exempt amounts exceed 77.47. */
export const STAMP_DUTY_CENTS = 200;
export const STAMP_DUTY_THRESHOLD_CENTS = 7747;
