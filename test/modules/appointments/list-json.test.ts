/**
 * GET /v1/appointments answers each appointment as the JSON PostgreSQL writes for it
 * (src/modules/appointments/store.ts, APPOINTMENT_JSON). Its bytes must be those the route's serializer wrote
 * from toView: compared here, byte for byte, with JSON.stringify of toView over the rows read
 * whole, for free text a clinic or a speech-to-text agent may store (quotes, backslashes,
 * control characters, accents, emoji, line separators, an empty string) and for timestamps with
 * and without milliseconds, in the year 10000, written in another session time zone.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPOINTMENT_JSON, withYearsAfter9999 } from '../../../src/modules/appointments/store.js';
import { toView } from '../../../src/modules/appointments/view.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { insertPatient } from '../../helpers/seed.js';

let server: TestServer;
let t: Tenant;

const TEXTS: Array<string | null> = [
  'Igiene "semestrale" \\ controllo',
  'Riga uno\nriga due\tcol\r\b\f',
  '\u0001\u001f\u007f controllo',
  'Perché è già così — “curve” ‘single’',
  'Dente 🦷 e sorriso 😀, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'Separatori\u2028\u2029 e </script>',
  '',
  null,
];

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
  const patient = await insertPatient(server, t);
  const start = Date.UTC(2031, 2, 4, 9, 30);
  for (let i = 0; i < TEXTS.length; i++) {
    await server.ctx.db
      .insertInto('appointments')
      .values({
        id: randomUUID(),
        clinic_id: t.clinicId,
        patient_id: patient,
        facility_id: i % 3 === 0 ? null : t.facilityIds[0],
        doctor_id: i % 2 === 0 ? t.doctorId : null,
        start_at: new Date(start + i * 3_600_000),
        end_at: new Date(start + i * 3_600_000 + 1_800_000),
        status: i % 2 === 0 ? 'scheduled' : 'confirmed',
        type: i % 3 === 1 ? 'checkup' : null,
        title: TEXTS[i],
        reason: TEXTS[TEXTS.length - 1 - i],
        origin: 'voice',
      })
      .execute();
  }
  // The table keeps milliseconds (timestamptz(3)): .999999 is stored 06.000, clock_timestamp()'s
  // microseconds rounded, a start a few hundred microseconds past the second rounded away.
  await sql`UPDATE appointments SET created_at = '2031-01-02 03:04:05.999999+00',
    updated_at = clock_timestamp() + (start_at - '2031-03-04 09:30+00') / 1000
    WHERE clinic_id = ${t.clinicId}`.execute(server.ctx.db);
  await sql`UPDATE appointments SET start_at = date_trunc('second', start_at) + interval '0.000123 s'
    WHERE clinic_id = ${t.clinicId} AND type = 'checkup'`.execute(server.ctx.db);
  // A start that an offset puts in the year 10000 in UTC (Date#toISOString: +010000-01-01T…).
  await sql`UPDATE appointments SET start_at = '9999-12-31 23:30-05', end_at = '10000-01-01 05:00+00'
    WHERE clinic_id = ${t.clinicId} AND title = ''`.execute(server.ctx.db);
});
afterAll(() => server.close());

/** The page as the route wrote it before: toView of the rows read whole, serialized, in the list's order. */
async function expectedPage(ids: string[], nextCursor: string | null): Promise<string> {
  const rows = await server.ctx.db.selectFrom('appointments').selectAll().where('id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return JSON.stringify({ data: ids.map((id) => toView(byId.get(id)!)), nextCursor });
}

describe('the list page written by the database', () => {
  it('is byte for byte the page toView and the serializer wrote, on every page, in both orders', async () => {
    for (const sort of ['updated', 'start'] as const) {
      let cursor: string | null = null;
      let seen = 0;
      do {
        const path: string = `/v1/appointments?limit=3&sort=${sort}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await server.call('GET', path, { token: t.token });
        expect(res.status, res.text).toBe(200);
        const page = JSON.parse(res.text) as { data: Array<{ id: string }>; nextCursor: string | null };
        expect(res.text).toBe(
          await expectedPage(
            page.data.map((a) => a.id),
            page.nextCursor,
          ),
        );
        seen += page.data.length;
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toBe(TEXTS.length);
    }
  });

  it('writes every text back as it was stored', async () => {
    const res = await server.call('GET', '/v1/appointments?limit=50', { token: t.token });
    const titles = (JSON.parse(res.text) as { data: Array<{ title: string | null }> }).data.map((a) => a.title);
    expect(titles.sort()).toEqual([...TEXTS].sort());
  });

  it('prints timestamps in UTC whatever the session time zone', async () => {
    const [json, rows] = await server.ctx.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL TimeZone = 'America/Los_Angeles'`.execute(trx);
      const written = await trx
        .selectFrom('appointments')
        .select(['id', APPOINTMENT_JSON.as('json')])
        .where('clinic_id', '=', t.clinicId)
        .orderBy('id')
        .execute();
      return [written, await trx.selectFrom('appointments').selectAll().where('clinic_id', '=', t.clinicId).orderBy('id').execute()] as const;
    });
    expect(json.map((r) => withYearsAfter9999(r.json))).toEqual(rows.map((r) => JSON.stringify(toView(r))));
    expect(json[0]!.json).toContain('"createdAt":"2031-01-02T03:04:06.000Z"');
    const far = json.find((r) => r.json.includes('"title":""'))!.json;
    expect(withYearsAfter9999(far)).toContain('"start":"+010000-01-01T04:30:00.000Z","end":"+010000-01-01T05:00:00.000Z"');
  });
});
