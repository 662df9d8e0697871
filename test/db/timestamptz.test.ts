/**
 * Timestamps read from PostgreSQL by positions (src/db/timestamptz.ts): every text PostgreSQL
 * prints reads as the driver's own parser reads it, to the millisecond, in every session time
 * zone (offsets of minutes and of seconds included); the shapes it does not read (BC years,
 * years before 1000 or after 9999, infinity) are left to the driver's parser; and on PostgreSQL
 * the values read through the pool are the instants stored.
 */
import pg from 'pg';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { parseTimestamptz } from '../../src/db/timestamptz.js';
import { ENGINE } from '../helpers/server.js';

// The driver's parser, taken before openDatabase installs ours.
const driverParse = pg.types.getTypeParser(1184, 'text') as (text: string) => Date;

/** An instant as PostgreSQL prints it in a zone `offsetSeconds` east of UTC, with `fraction` digits of microseconds. */
function printed(ms: number, micros: number, offsetSeconds: number, fraction: number): string {
  const local = new Date(ms + offsetSeconds * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  let text = `${String(local.getUTCFullYear()).padStart(4, '0')}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())} ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}`;
  const digits = String(local.getUTCMilliseconds() * 1000 + micros).padStart(6, '0');
  if (fraction > 0) text += `.${digits.slice(0, fraction)}`;
  const sign = offsetSeconds < 0 ? '-' : '+';
  const abs = Math.abs(offsetSeconds);
  text += `${sign}${two(Math.floor(abs / 3600))}`;
  if (abs % 3600 !== 0) text += `:${two(Math.floor((abs % 3600) / 60))}`;
  if (abs % 60 !== 0) text += `:${two(abs % 60)}`;
  return text;
}

describe('timestamps read by positions', () => {
  it('reads every printed instant as the driver does, in every offset and fraction length', () => {
    const offsets = [0, 3600, -5 * 3600, 5.5 * 3600, 5.75 * 3600, -3.5 * 3600, 14 * 3600, -(9 * 3600 + 30 * 60 + 15), 19 * 60 + 32];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const from = Date.UTC(1000, 0, 2);
    const to = Date.UTC(9999, 11, 30);
    let compared = 0;
    for (let i = 0; i < 4000; i++) {
      const ms = Math.floor(from + random() * (to - from));
      const text = printed(ms, Math.floor(random() * 1000), offsets[i % offsets.length]!, i % 7);
      const ours = parseTimestamptz(text);
      expect(ours, text).not.toBeNull();
      expect(ours!.getTime(), text).toBe(driverParse(text).getTime());
      compared++;
    }
    expect(compared).toBe(4000);
  });

  it('leaves the shapes it does not read to the driver', () => {
    for (const text of [
      'infinity',
      '-infinity',
      '0050-03-04 09:30:00+00',
      '0999-03-04 09:30:00+00',
      '1500-03-04 09:30:00+00 BC',
      '12026-03-04 09:30:00+00',
      '2026-03-04T09:30:00Z',
      '2026-03-04 09:30:00',
      '2026-03-04 09:30:00.+00',
      '2026-03-04 09:30:00+00x',
      '2026-03-04 09:3a:00+00',
    ]) {
      expect(parseTimestamptz(text), text).toBeNull();
    }
  });
});

describe.skipIf(ENGINE !== 'postgres')('timestamps read through the pool (PostgreSQL)', () => {
  it('reads the stored instant in any session time zone, and the shapes the driver reads', async () => {
    const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL!, dataDir: null, poolMax: 1 });
    try {
      const instants = ['2026-03-04T09:30:00.123Z', '1900-01-01T12:00:00.000Z', '2026-10-25T00:59:59.999Z', '9999-12-31T23:59:59.999Z'];
      for (const zone of ['UTC', 'Asia/Kathmandu', 'America/St_Johns', 'Europe/Amsterdam', 'Europe/Rome']) {
        const read = await database.db.transaction().execute(async (trx) => {
          await sql`SELECT set_config('TimeZone', ${zone}, true)`.execute(trx);
          const rows = await sql<{ at: Date }>`SELECT unnest(${instants}::timestamptz[]) AS at`.execute(trx);
          return rows.rows.map((r) => r.at.toISOString());
        });
        expect(read, zone).toEqual(instants);
      }
      const odd = await sql<{ bc: Date; early: Date; inf: number }>`
        SELECT '0500-06-01 00:00:00+00 BC'::timestamptz AS bc, '0050-06-01 00:00:00+00'::timestamptz AS early, 'infinity'::timestamptz AS inf`.execute(
        database.db,
      );
      expect(odd.rows[0]!.bc.getUTCFullYear()).toBe(-499);
      expect(odd.rows[0]!.early.getUTCFullYear()).toBe(50);
      expect(odd.rows[0]!.inf).toBe(Infinity);
    } finally {
      await database.close();
    }
  });
});
