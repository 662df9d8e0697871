/** Calendar dates of billing (due dates, validity): `YYYY-MM-DD` in the clinic's time zone. */
import { localParts } from '../../lib/time-zone.js';

/** Today's date in a time zone: an installment or a quote is overdue/expired from the day after. */
export function localDate(timeZone: string, at: Date = new Date()): string {
  const p = localParts(at, timeZone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** A calendar date plus some days (calendar arithmetic in UTC: no daylight-saving shift). */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
