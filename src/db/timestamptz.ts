/**
 * PostgreSQL's text form of a `timestamptz` (`2026-03-04 09:30:00.123456+00`, the offset of the
 * session's TimeZone) read into a Date, for the `pg` driver.
 *
 * Why not only `postgres-date`, the driver's own parser: it runs three regular expressions per
 * value, and a list page holds four timestamps per row. Under load on `GET /appointments` with
 * the read cache off it was a large part of the server's CPU (`--cpu-prof`), and its match
 * arrays a good part of the garbage. This reads the one layout PostgreSQL prints by fixed
 * positions; anything else (BC years, years before 1000 or after 9999, `infinity`, another
 * DateStyle) is null here, and src/db/database.ts hands it to the driver's own parser, so every
 * value reads as it did before.
 */
const ZERO = 48;

/** The digit at `at` as a number, or -1 if it is not a digit (or past the end). */
function digitAt(text: string, at: number): number {
  const d = text.charCodeAt(at) - ZERO;
  return d >= 0 && d <= 9 ? d : -1;
}

/** The digits of `text` from `from` to `to` (exclusive) as a number; NaN if one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = digitAt(text, i);
    if (d < 0) return NaN;
    value = value * 10 + d;
  }
  return value;
}

/** The Date of PostgreSQL's `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]]`, or null if the text has another shape. */
export function parseTimestamptz(text: string): Date | null {
  if (text.length < 22 || text[4] !== '-' || text[7] !== '-' || text[10] !== ' ' || text[13] !== ':' || text[16] !== ':') return null;
  const year = digits(text, 0, 4);
  // Date.UTC reads the years 0-99 as 1900-1999: those go to the driver's parser, which corrects them.
  if (!(year >= 1000)) return null;
  let at = 19;
  // Milliseconds: the fraction's first three digits; Date.UTC truncates the driver's
  // `1000 * 0.123456` the same way.
  let ms = 0;
  if (text[at] === '.') {
    let end = at + 1;
    while (digitAt(text, end) >= 0) end++;
    if (end === at + 1) return null;
    const taken = Math.min(end - at - 1, 3);
    ms = digits(text, at + 1, at + 1 + taken) * (taken === 1 ? 100 : taken === 2 ? 10 : 1);
    at = end;
  }
  const sign = text[at] === '+' ? 1 : text[at] === '-' ? -1 : 0;
  if (sign === 0) return null;
  let offsetSeconds = digits(text, at + 1, at + 3) * 3600;
  at += 3;
  if (text[at] === ':') {
    offsetSeconds += digits(text, at + 1, at + 3) * 60;
    at += 3;
    if (text[at] === ':') {
      offsetSeconds += digits(text, at + 1, at + 3);
      at += 3;
    }
  }
  if (at !== text.length) return null;
  const time = Date.UTC(year, digits(text, 5, 7) - 1, digits(text, 8, 10), digits(text, 11, 13), digits(text, 14, 16), digits(text, 17, 19), ms);
  const value = time - sign * offsetSeconds * 1000;
  return Number.isNaN(value) ? null : new Date(value);
}
