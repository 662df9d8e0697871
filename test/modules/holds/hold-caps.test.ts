/**
 * Hold starvation (issue 33, item 1): one key cannot hold a calendar away from the other callers
 * (a third of a day's slots at most, race-safely), and a holder cannot renew its hold for ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { SCOPES } from '../../../src/modules/auth/scopes.js';
import { createApiKey } from '../../../src/modules/auth/keys-service.js';
import type { OperationTypes } from '../../../packages/client/src/index.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { at, insertPatient, makeCalendar } from '../../helpers/seed.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

type HoldInput = OperationTypes['createSlotHold']['requestBody']['content']['application/json'];
const hold = (calendarId: string, body: HoldInput, token: string) =>
  server.api(token).raw.POST('/calendars/{id}/holds', { params: { path: { id: calendarId } }, body });
const release = (id: string, token: string) => server.api(token).raw.DELETE('/holds/{id}', { params: { path: { id } } });
/** The free slot starts of the calendar on the day `day` days from now (its UTC day, which holds the clinic day’s 09:00-12:00). */
const freeStarts = async (calendarId: string, day: number, token = tenant.token) =>
  (await server.api(token).call('getCalendarAvailability', { params: { path: { id: calendarId }, query: { from: at(day, 0), to: at(day, 23) } } })).data.map(
    (s) => s.start,
  );
const voiceKey = async () => (await createApiKey(server.ctx.db, tenant.clinicId, { name: 'voce', scopes: [...SCOPES], agent: 'voice_agent' })).token;
/** A calendar of 6 half-hour slots a day (09:00-12:00 clinic time). */
const smallCalendar = () =>
  makeCalendar(server, tenant, {
    workingHours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ open: '09:00', close: '12:00' }]])),
  });

describe('hold caps', () => {
  it('one key holding every slot of a 6-slot day gets 2 of them, even in parallel; the others stay bookable', async () => {
    const cal = await smallCalendar();
    const day = 5;
    const starts = await freeStarts(cal.id, day);
    expect(starts).toHaveLength(6);
    const starver = await voiceKey();
    const results = await Promise.all(starts.map((start, i) => hold(cal.id, { start, holderRef: `starve-${i}` }, starver)));
    const statuses = results.map((r) => r.response.status);
    expect(
      statuses.filter((s) => s === 201),
      JSON.stringify(statuses),
    ).toHaveLength(2);
    for (const refused of results.filter((r) => r.response.status !== 201)) {
      expect(refused.response.status).toBe(409);
      expect(refused.error?.error.details).toMatchObject({ reason: 'hold_limit_calendar', limit: 2 });
    }
    const held = await server.ctx.db.selectFrom('slot_holds').select('start_at').where('calendar_id', '=', cal.id).execute();
    expect(held).toHaveLength(2);

    // Replacing one of its own holds is not one more.
    const mine = results.find((r) => r.response.status === 201)!.data!;
    const free = await freeStarts(cal.id, day);
    const moved = await hold(cal.id, { start: free[0]!, holderRef: mine.holderRef }, starver);
    expect(moved.response.status, JSON.stringify(moved.error)).toBe(201);

    // The other callers still see and take the other 4.
    const left = await freeStarts(cal.id, day);
    expect(left).toHaveLength(4);
    const other = await voiceKey();
    expect((await hold(cal.id, { start: left[0]!, holderRef: 'other-call' }, other)).response.status).toBe(201);
    const patientId = await insertPatient(server, tenant);
    const booked = await server.api(tenant.token).raw.POST('/appointments', { body: { calendarId: cal.id, patientId, start: left[1]! } });
    expect(booked.response.status, JSON.stringify(booked.error)).toBe(201);

    // Another day has its own share.
    const nextDay = await freeStarts(cal.id, day + 1);
    expect((await hold(cal.id, { start: nextDay[0]!, holderRef: 'starve-next' }, starver)).response.status).toBe(201);
  });

  it('renewing a hold keeps its first deadline, and past its total life is refused, writing nothing', async () => {
    const cal = await makeCalendar(server, tenant);
    const key = await voiceKey();
    const first = await hold(cal.id, { start: at(4, 9), holderRef: 'long-call' }, key);
    expect(first.response.status).toBe(201);
    const backdate = (minutes: number) =>
      server.ctx.db
        .updateTable('slot_holds')
        .set({ first_held_at: sql<Date>`now() - make_interval(mins => ${minutes})` })
        .where('holder_ref', '=', 'long-call')
        .execute();

    // 14 minutes into the call: the renewal lives one more minute, not ttlSeconds.
    await backdate(14);
    const renewed = await hold(cal.id, { start: at(4, 10), holderRef: 'long-call', ttlSeconds: 600 }, key);
    expect(renewed.response.status, JSON.stringify(renewed.error)).toBe(201);
    const left = Date.parse(renewed.data!.expiresAt) - Date.now();
    expect(left).toBeGreaterThan(30_000);
    expect(left).toBeLessThan(90_000);

    // 16 minutes: refused, and the hold it would replace is still there.
    await backdate(16);
    const refused = await hold(cal.id, { start: at(4, 11), holderRef: 'long-call' }, key);
    expect(refused.response.status, JSON.stringify(refused.error)).toBe(409);
    expect(refused.error?.error.details).toMatchObject({ reason: 'hold_life_exceeded', lifeSeconds: 900 });
    const kept = await server.ctx.db.selectFrom('slot_holds').select(['id', 'start_at']).where('holder_ref', '=', 'long-call').execute();
    expect(kept.map((h) => h.id)).toEqual([renewed.data!.id]);

    // Lapsed a whole life ago (its slot free for others that long), the holder starts afresh.
    const holdsFor = (minutes: number) => ({ start: at(4, 11, minutes), holderRef: 'long-call', ttlSeconds: 600 });
    await server.ctx.db
      .updateTable('slot_holds')
      .set({ expires_at: sql<Date>`now() - interval '16 minutes'` })
      .where('holder_ref', '=', 'long-call')
      .execute();
    const afresh = await hold(cal.id, holdsFor(0), key);
    expect(afresh.response.status, JSON.stringify(afresh.error)).toBe(201);
    expect(Date.parse(afresh.data!.expiresAt) - Date.now()).toBeGreaterThan(500_000);

    // Released, too: the next hold is a new one.
    await backdate(16);
    expect((await hold(cal.id, holdsFor(30), key)).response.status).toBe(409);
    expect((await release(afresh.data!.id, key)).response.status).toBe(204);
    const fresh = await hold(cal.id, holdsFor(30), key);
    expect(fresh.response.status, JSON.stringify(fresh.error)).toBe(201);
    expect(Date.parse(fresh.data!.expiresAt) - Date.now()).toBeGreaterThan(500_000);
  });
});
