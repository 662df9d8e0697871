/**
 * Reading a request body as `unknown`, for the checks of a body that need no database
 * (`src/modules/<noun>/checks.ts`): they run on a valid body in the service and on a body its
 * schema refused in the error handler, so they judge only what has the type the schema asks
 * (anything else the schema names) and never throw.
 */
import { toCanonicalPhone, type PhoneRegion } from './phone.js';

type Loose = Record<string, unknown>;

/** The fields of an object; {} for anything else. */
export const record = (v: unknown): Loose => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});

/** The items of a list; [] for anything else. */
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A timestamp or date the schema accepts as text, in milliseconds; undefined when absent or unreadable. */
export function instant(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The issue of a text that is not a phone number (read in `region` without a country prefix); none for anything else. */
export function phoneIssue(
  value: unknown,
  region: PhoneRegion,
  path: string,
  message = 'non è un numero di telefono valido',
): { path: string; message: string }[] {
  return typeof value === 'string' && toCanonicalPhone(value, region) === null ? [{ path, message }] : [];
}
