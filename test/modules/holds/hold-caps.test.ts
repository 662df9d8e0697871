/**
 * Hold caps: one key serving many concurrent calls (one holder each) is never refused while
 * slots are free; one holder (a call, or the key itself when holds come without holderRef) holds
 * one slot at a time, even of a calendar with a single slot a day, and cannot renew it for ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { SCOPES } from '../../../src/modules/auth/scopes.js';
import { createApiKey } from '../../../src/modules/auth/keys-service.js';
import type { OperationTypes } from '../../../packages/client/src/index.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { at, makeCalendar } from '../../helpers/seed.js';

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
/** A calendar of `slots` half-hour slots a day from 09:00 clinic time. */
const dailyCalendar = (slots: number) =>
  makeCalendar(server, tenant, {
    workingHours: Object.fromEntries(
      ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [
        d,
        [{ open: '09:00', close: `${String(9 + Math.floor(slots / 2)).padStart(2, '0')}:${slots % 2 ? '30' : '00'}` }],
      ]),
    ),
  });
const holdsOf = (keyId: string) => server.ctx.db.selectFrom('slot_holds').select(['start_at', 'holder_ref']).where('api_key_id', '=', keyId).execute();

describe('hold caps', () => {
  it('never refuses 20 concurrent calls of one key holding one slot each of one service on one day while slots are free', async () => {
    const cal = await makeCalendar(server, tenant);
    const day = 5;
    const starts = (await freeStarts(cal.id, day)).slice(0, 20);
    expect(starts).toHaveLength(20);
    const key = await createApiKey(server.ctx.db, tenant.clinicId, { name: 'voce', scopes: [...SCOPES], agent: 'voice_agent' });
    const results = await Promise.all(starts.map((start, i) => hold(cal.id, { start, holderRef: `call-${i}` }, key.token)));
    expect(
      results.map((r) => r.response.status),
      JSON.stringify(results.map((r) => r.error)),
    ).toEqual(starts.map(() => 201));
    expect(await holdsOf(key.id)).toHaveLength(20);

    // Of a day of 6 slots, 8 concurrent calls: the 6 slots are held, the 2 late callers hear the slot was taken (no cap).
    const small = await dailyCalendar(6);
    const six = await freeStarts(small.id, day);
    expect(six).toHaveLength(6);
    const wanted = [...six, six[0]!, six[1]!];
    const raced = await Promise.all(wanted.map((start, i) => hold(small.id, { start, holderRef: `small-${i}` }, key.token)));
    const statuses = raced.map((r) => r.response.status);
    expect(
      statuses.filter((s) => s === 201),
      JSON.stringify(statuses),
    ).toHaveLength(6);
    for (const refused of raced.filter((r) => r.response.status !== 201)) {
      expect(refused.response.status).toBe(409);
      expect(refused.error?.error.details).toMatchObject({ reason: 'slot_taken' });
    }
  });

  it('lets a holder hold one slot at a time: a second hold replaces the first, whose slot is free again', async () => {
    const cal = await dailyCalendar(6);
    const key = await createApiKey(server.ctx.db, tenant.clinicId, { name: 'voce', scopes: [...SCOPES], agent: 'voice_agent' });
    const [first, second] = await freeStarts(cal.id, 4);
    expect((await hold(cal.id, { start: first!, holderRef: 'one-call' }, key.token)).response.status).toBe(201);
    expect((await hold(cal.id, { start: second!, holderRef: 'one-call' }, key.token)).response.status).toBe(201);
    expect((await holdsOf(key.id)).map((h) => h.start_at.toISOString())).toEqual([second]);
    expect(await freeStarts(cal.id, 4)).toContain(first);
  });

  it('a calendar with a single slot a day: one holder, or a key without holderRef, holds one of its slots at most', async () => {
    const cal = await dailyCalendar(1);
    const days = [3, 4, 5];
    const starts = await Promise.all(days.map(async (d) => (await freeStarts(cal.id, d))[0]!));
    const key = await createApiKey(server.ctx.db, tenant.clinicId, { name: 'voce', scopes: [...SCOPES], agent: 'voice_agent' });

    // One holder, day after day: it keeps only the last.
    for (const start of starts) expect((await hold(cal.id, { start, holderRef: 'runaway' }, key.token)).response.status).toBe(201);
    expect((await holdsOf(key.id)).map((h) => h.start_at.toISOString())).toEqual([starts[2]]);
    expect(await freeStarts(cal.id, days[0]!)).toEqual([starts[0]]);

    // Without holderRef the key is the holder of this calendar: a second day is refused, even in parallel; the same slot again renews.
    const other = await createApiKey(server.ctx.db, tenant.clinicId, { name: 'rest', scopes: [...SCOPES] });
    const parallel = await Promise.all(starts.slice(0, 2).map((start) => hold(cal.id, { start }, other.token)));
    expect(parallel.map((r) => r.response.status).sort()).toEqual([201, 409]);
    const won = parallel.find((r) => r.response.status === 201)!.data!;
    expect(won.holderRef).toBe(`key:${cal.id}`);
    const lost = parallel.find((r) => r.response.status === 409)!;
    expect(lost.error?.error.details).toMatchObject({ reason: 'hold_limit_calendar', limit: 1, heldStart: won.start });
    expect(await holdsOf(other.id)).toHaveLength(1);
    const renewed = await hold(cal.id, { start: won.start }, other.token);
    expect(renewed.response.status, JSON.stringify(renewed.error)).toBe(201);
    expect(await holdsOf(other.id)).toHaveLength(1);
    // Released, the key may hold another day's slot.
    expect((await release(renewed.data!.id, other.token)).response.status).toBe(204);
    const next = starts.find((s) => s !== won.start && s !== starts[2])!;
    expect((await hold(cal.id, { start: next }, other.token)).response.status).toBe(201);
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
