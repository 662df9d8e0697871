/**
 * Opaque, signed page cursors. A cursor carries the sort values of the last row of a page
 * and is bound to the list it came from (clinic, endpoint, filters): a tampered cursor or
 * one from another list is `400 invalid_request`, never a wrong page.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.js';

type CursorValues = Array<string | number | null>;

function sign(secret: string, scope: string, payload: string): string {
  return createHmac('sha256', secret).update(scope).update('\n').update(payload).digest('base64url').slice(0, 22);
}

/** `scope` names the list: e.g. `appointments:<clinicId>:<filters>`. */
export function encodeCursor(secret: string, scope: string, values: CursorValues): string {
  const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
  return `${payload}.${sign(secret, scope, payload)}`;
}

const invalid = () => ApiError.invalid('query', [{ path: 'cursor', message: 'cursore non valido: usa il nextCursor ricevuto, senza modificarlo' }]);

export function decodeCursor(secret: string, scope: string, cursor: string): CursorValues {
  const [payload, signature, extra] = cursor.split('.');
  if (!payload || !signature || extra !== undefined) throw invalid();
  const expected = Buffer.from(sign(secret, scope, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
  try {
    const values = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!Array.isArray(values)) throw invalid();
    return values as CursorValues;
  } catch {
    throw invalid();
  }
}

/** The cursor of a keyset list ordered by (a timestamp, id): the last row's pair. */
export function encodeKeyset(secret: string, scope: string, at: Date | string, id: string): string {
  return encodeCursor(secret, scope, [new Date(at).toISOString(), id]);
}

/** The (timestamp, id) pair of a keyset cursor of this list, for `after()` of src/db/keyset.ts; 400 otherwise. */
export function decodeKeyset(secret: string, scope: string, cursor: string): [Date, string] {
  const [at, id, extra] = decodeCursor(secret, scope, cursor);
  if (typeof at !== 'string' || typeof id !== 'string' || extra !== undefined || Number.isNaN(Date.parse(at))) throw invalid();
  return [new Date(at), id];
}

/**
 * Keyset paging helper: fetch `limit + 1` rows; if there is an extra one, the page is full
 * and the cursor points after its last row.
 */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (row: T) => string): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: cursorOf(items[items.length - 1]!) };
}
