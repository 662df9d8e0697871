/**
 * bench/lib/scale-seed.ts (`npm run seed:scale`) at a small size: 20 clinics built by set-based
 * SQL hold what the sizes ask for, and the API works on the result: a seeded key of the biggest
 * clinic reads its calendar's free slots, books one for a seeded patient, finds the patient by
 * name and phone, and sees none of another clinic's rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createClient } from '../../packages/client/src/index.js';
import { SIZES, seedScale, type ScaleSizes } from '../../bench/lib/scale-seed.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// One doctor a calendar, so every clinic (two doctors at least) has its doctors on several calendars.
const SIZE: ScaleSizes = { ...SIZES.small!, clinics: 20, patients: 1_000, big: 300, accessLog: 5_000, doctorsPerCalendar: 1 };
let server: TestServer;
let seeded: Awaited<ReturnType<typeof seedScale>>;

beforeAll(async () => {
  server = await startTestServer();
  seeded = await seedScale(server.ctx.db, SIZE);
}, 120_000);

afterAll(() => server?.close());

describe('seed:scale', () => {
  it('builds the clinics, the biggest first, and the rows the sizes ask for', async () => {
    expect(seeded.tokens).toHaveLength(20);
    const count = async (table: string) =>
      Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(server.ctx.db)).rows[0]!.n);
    const patients = await count('patients');
    expect(patients).toBeGreaterThan(950);
    expect(patients).toBeLessThanOrEqual(1_000);
    expect(await count('appointments')).toBe(patients * SIZE.appointmentsPerPatient);
    expect(await count('access_log')).toBeGreaterThan(4_900);
    expect(await count('webhook_deliveries')).toBeGreaterThan(0);
    // The partitioned tables' indexes, dropped for the load and made again, cover every month (valid).
    const invalid = await sql<{ name: string }>`
      SELECT i.relname::text AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relname IN ('access_log', 'events') AND NOT x.indisvalid`.execute(server.ctx.db);
    expect(invalid.rows).toEqual([]);
    const big = await sql<{ n: number }>`SELECT count(*)::int AS n FROM patients WHERE clinic_id = ${seeded.tokens[0]!.clinicId}`.execute(server.ctx.db);
    expect(big.rows[0]!.n).toBe(300);
  });

  it("spreads a clinic's doctors over calendars of doctorsPerCalendar, and books each appointment on its doctor's calendar", async () => {
    const shape = await sql<{ calendars: number; doctors: number; widest: number }>`
      SELECT count(*)::int AS calendars, sum(cardinality(doctor_ids))::int AS doctors, max(cardinality(doctor_ids))::int AS widest FROM calendars`.execute(
      server.ctx.db,
    );
    const doctors = await sql<{ n: number }>`SELECT count(*)::int AS n FROM doctors`.execute(server.ctx.db);
    expect(shape.rows[0]).toEqual({ calendars: doctors.rows[0]!.n, doctors: doctors.rows[0]!.n, widest: 1 });
    const astray = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM appointments a JOIN calendars c ON c.id = a.calendar_id
      WHERE NOT (a.doctor_id = ANY (c.doctor_ids)) OR c.clinic_id <> a.clinic_id`.execute(server.ctx.db);
    expect(astray.rows[0]!.n).toBe(0);
  });

  it('gives keys that work: the biggest clinic books a free slot for its patient, and finds the patient', async () => {
    const api = createClient({ baseUrl: `${server.url}/v1`, apiKey: seeded.tokens[0]!.token, retry: false });
    const calendars = await api.call('listCalendars', {});
    expect(calendars.data.length).toBeGreaterThanOrEqual(2);
    const calendarId = calendars.data[0]!.id;
    // The seeded calendar is open on weekdays: the first weekday a week from now.
    const day = new Date(Date.now() + 7 * 86_400_000);
    while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day.setUTCDate(day.getUTCDate() + 1);
    const next = day.toISOString().slice(0, 10);
    const slots = await api.call('getCalendarAvailability', { params: { path: { id: calendarId }, query: { date: next } } });
    const slot = slots.data[0]!;
    const found = await api.call('searchPatients', { params: { query: { q: 'Mario Rossi' } } });
    expect(found.data.length).toBeGreaterThan(0);
    const patientId = found.data[0]!.id;
    const booked = await api.call('createAppointment', { body: { calendarId, patientId, start: slot.start, doctorId: slot.doctorId ?? undefined } });
    expect(booked.status).toBe('scheduled');
    const byPhone = await api.call('lookupPatient', { params: { query: { phone: '+393000000001' } } });
    // Patient 1 of every clinic: +393000000001, Giulia (names[1]), Rossi twice (surnames[0]).
    expect(byPhone).toMatchObject({ found: true, patient: { name: 'Giulia Rossi Rossi' } });
    // Another clinic's key sees none of it.
    const other = createClient({ baseUrl: `${server.url}/v1`, apiKey: seeded.tokens[1]!.token, retry: false });
    const theirs = await other.raw.GET('/appointments/{id}', { params: { path: { id: booked.id } } });
    expect(theirs.response.status).toBe(404);
  });
});
