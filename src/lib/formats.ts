/**
 * The input formats of spec 2.1 as plain predicates and parsers, shared by the schema
 * validator (as ajv formats) and by services that read values outside a schema.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;
// Local part: no leading dot, no two dots in a row; domain: labels and a top-level part of 2+ letters.
const EMAIL = /^(?!\.)(?!.*\.\.)[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** `YYYY-MM-DD`, a real calendar date (leap years honoured). */
export function isDate(value: string): boolean {
  const m = DATE.exec(value);
  return m !== null && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/**
 * Parses an input timestamp of spec 2.1: date-time with `T`, optional seconds and fraction,
 * `Z` or a `±hh:mm` offset, on a real calendar date. Returns null when it is not one.
 */
export function parseTimestamp(value: string): Date | null {
  const m = DATE_TIME.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (!isCalendarDate(year!, month!, day!) || hour! > 23 || minute! > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (!m[8]) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const millis = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  const utc = Date.UTC(year!, month! - 1, day!, hour!, minute!, second, millis) - offsetMinutes * 60_000;
  const date = new Date(utc);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function isTimestamp(value: string): boolean {
  return parseTimestamp(value) !== null;
}

export function isEmail(value: string): boolean {
  return EMAIL.test(value);
}
