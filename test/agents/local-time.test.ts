/**
 * The hour the caller hears: through MCP, a time sent without offset is the clinic's local time
 * (winter and summer, the two days the clock changes, a time the clock skips or passes twice, a
 * clinic in another zone), and every time a tool answers carries the clinic-local reading
 * (localDate, localTime, label) of that zone. REST keeps its rule: a timestamp needs an offset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertPatient, makeCalendar } from '../helpers/seed.js';
import { callTool, listTools, toolError } from './mcp-client.js';

let server: TestServer;
let rome: Tenant;
let york: Tenant;
let romeCal: string;
let yorkCal: string;

beforeAll(async () => {
  server = await startTestServer();
  rome = await server.factories.tenant();
  york = await server.factories.tenant({ timezone: 'America/New_York' });
  // Open every day round the clock (the clock changes fall on Sundays), bookable two years ahead.
  romeCal = (await makeCalendar(server, rome, { horizonDays: 730 })).id;
  yorkCal = (await makeCalendar(server, york, { horizonDays: 730 })).id;
}, 60_000);
afterAll(() => server.close());

let ref = 0;
async function hold(t: Tenant, calendarId: string, start: string) {
  return callTool(server.url, t.token, 'hold_slot', { calendarId, start, holderRef: `call-${++ref}`, callId: `call-${ref}` });
}

describe('a time without offset is the clinic’s local time', () => {
  it('find_slots of a local morning, then hold_slot with `YYYY-MM-DDT09:00` holds 09:00 in Rome, winter (+01:00) and summer (+02:00)', async () => {
    for (const [date, utc, label] of [
      ['2027-01-12', '2027-01-12T08:00:00.000Z', 'martedì 12 gennaio alle 9:00'],
      ['2027-07-13', '2027-07-13T07:00:00.000Z', 'martedì 13 luglio alle 9:00'],
    ] as const) {
      const slots = await callTool(server.url, rome.token, 'find_slots', { calendarId: romeCal, date, partOfDay: 'morning' });
      expect(slots.isError, JSON.stringify(slots)).toBeFalsy();
      const data = slots.structuredContent.data as { start: string; localDate: string; localTime: string; partOfDay: string; label: string }[];
      // The local morning: 00:00 to 12:30 (30-minute slots), all of that day.
      expect(data.map((s) => s.localTime)).toEqual(expect.arrayContaining(['00:00', '09:00', '12:30']));
      expect(data.every((s) => s.localDate === date && s.partOfDay === 'morning')).toBe(true);
      expect(data.find((s) => s.localTime === '09:00')).toMatchObject({ start: utc, label });

      const held = await hold(rome, romeCal, `${date}T09:00`);
      expect(held.isError, JSON.stringify(held)).toBeFalsy();
      expect(held.structuredContent).toMatchObject({ start: utc, localDate: date, localTime: '09:00', label });
    }
  });

  it('the days the clock changes: 09:00 is after the change; 02:30 that the clock skips is refused by name; 02:30 it passes twice is the first', async () => {
    const spring = await hold(rome, romeCal, '2027-03-28T09:00:00');
    expect(spring.structuredContent).toMatchObject({ start: '2027-03-28T07:00:00.000Z', localTime: '09:00', label: 'domenica 28 marzo alle 9:00' });
    const autumn = await hold(rome, romeCal, '2027-10-31T09:00');
    expect(autumn.structuredContent).toMatchObject({ start: '2027-10-31T08:00:00.000Z', localTime: '09:00', label: 'domenica 31 ottobre alle 9:00' });

    const skipped = toolError(await hold(rome, romeCal, '2027-03-28T02:30'));
    expect(skipped.code).toBe('invalid_request');
    expect(skipped.details.issues).toEqual([{ path: 'start', message: expect.stringContaining('non esiste') }]);
    expect(skipped.details.issues[0].message).toContain('Europe/Rome');
    // The spring-forward day has no 02:00-03:00 slots; its hours around it are there.
    const day = await callTool(server.url, rome.token, 'find_slots', { calendarId: romeCal, date: '2027-03-28', partOfDay: 'morning' });
    const times = (day.structuredContent.data as { localTime: string }[]).map((s) => s.localTime);
    expect(times).toEqual(expect.arrayContaining(['01:30', '03:00']));
    expect(times).not.toContain('02:30');

    // 02:30 on the fall-back day: the first of the two, still on summer time (+02:00).
    const twice = await callTool(server.url, rome.token, 'find_slots', { calendarId: romeCal, from: '2027-10-31T02:30', to: '2027-10-31T04:00' });
    expect(twice.isError, JSON.stringify(twice)).toBeFalsy();
    expect(twice.structuredContent.window.from).toBe('2027-10-31T00:30:00.000Z');
    expect(twice.structuredContent.window.to).toBe('2027-10-31T03:00:00.000Z');
  });

  it('names every wrong argument at once: a time that is no date-time in words, with the others the schema refuses', async () => {
    const wrong = toolError(await callTool(server.url, rome.token, 'find_slots', { calendarId: romeCal, from: 'martedì alle 9', limit: 0 }));
    expect(wrong.code).toBe('invalid_request');
    const paths = (wrong.details.issues as { path: string; message: string }[]).map((i) => i.path).sort();
    expect(paths).toEqual(['from', 'limit']);
    expect(wrong.details.issues.find((i: { path: string }) => i.path === 'from').message).toContain('2027-03-09T09:00');
    // An instant with Z or an offset passes as it is.
    const z = await hold(rome, romeCal, '2027-01-14T08:00:00Z');
    expect(z.structuredContent).toMatchObject({ localTime: '09:00' });
  });

  it('a clinic in America/New_York: 09:00 is 09:00 there (-05:00 in winter, -04:00 in summer), read out in its zone', async () => {
    const winter = await hold(york, yorkCal, '2027-01-12T09:00');
    expect(winter.structuredContent).toMatchObject({ start: '2027-01-12T14:00:00.000Z', localTime: '09:00', label: 'martedì 12 gennaio alle 9:00' });
    const summer = await hold(york, yorkCal, '2027-07-13T09:00');
    expect(summer.structuredContent).toMatchObject({ start: '2027-07-13T13:00:00.000Z', localTime: '09:00' });
    // 02:30 on 2027-03-14 does not exist in New York.
    expect(toolError(await hold(york, yorkCal, '2027-03-14T02:30')).details.issues[0].path).toBe('start');
  });

  it('REST keeps its contract: a timestamp without offset is 400; date/partOfDay never go with from/to', async () => {
    const bare = await server.call('GET', `/v1/calendars/${romeCal}/availability?from=2027-03-10T09:00`, { token: rome.token });
    expect(bare.status).toBe(400);
    expect(bare.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['from']);
    const both = await server.call('GET', `/v1/calendars/${romeCal}/availability?date=2027-03-10&from=2027-03-10T09:00Z&to=2027-03-11T09:00Z`, {
      token: rome.token,
    });
    expect(both.status).toBe(400);
    expect(both.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['from', 'to']);
    const part = await server.call('GET', `/v1/calendars/${romeCal}/availability?partOfDay=evening`, { token: rome.token });
    expect(part.status).toBe(400);
    expect(part.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['partOfDay']);
    const evening = await server.call('GET', `/v1/calendars/${yorkCal}/availability?date=2027-03-14&partOfDay=evening`, { token: york.token });
    expect(evening.status, evening.text).toBe(200);
    expect(evening.body.window).toEqual({ from: '2027-03-14T22:00:00.000Z', to: '2027-03-15T04:00:00.000Z' });
  });

  it('the schemas a model sees take the local form, with examples in the clinic’s offset, never Z', async () => {
    for (const [t, offset] of [
      [rome, '+01:00'],
      [york, '-05:00'],
    ] as const) {
      const tools = await listTools(server.url, t.token);
      const from = tools.find((x) => x.name === 'find_slots')!.inputSchema.properties!.from as Record<string, unknown>;
      expect(from.format).toBeUndefined();
      expect(from.description).toContain('without offset');
      expect(from.examples).toEqual(['2027-03-09T09:00', `2027-03-09T09:00:00${offset}`]);
      const start = tools.find((x) => x.name === 'hold_slot')!.inputSchema.properties!.start as Record<string, unknown>;
      expect(JSON.stringify(start)).not.toMatch(/\d{2}Z"/);
      expect(tools.find((x) => x.name === 'list_patient_appointments')!.description).not.toContain('UTC instants');
    }
  });
});

describe('what the tools answer carries the clinic’s reading', () => {
  it('New York: the booking, the taken slot’s alternatives, the list, the caller context and a waitlist offer', async () => {
    const patient = await insertPatient(server, york, york.facilityIds[0], { phone: '+12125550101' });
    const booked = await callTool(server.url, york.token, 'book_appointment', {
      calendarId: yorkCal,
      start: '2027-02-09T10:00',
      patientId: patient,
      callId: 'book-ny-1',
    });
    expect(booked.isError, JSON.stringify(booked)).toBeFalsy();
    expect(booked.structuredContent).toMatchObject({
      start: '2027-02-09T15:00:00.000Z',
      localDate: '2027-02-09',
      localTime: '10:00',
      label: 'martedì 9 febbraio alle 10:00',
    });

    // The same time again: taken, with alternatives in New York's words.
    const taken = toolError(await hold(york, yorkCal, '2027-02-09T10:00'));
    expect(taken.code).toBe('no_availability');
    const alternatives = taken.details.alternatives as { start: string; localDate: string; localTime: string; label: string }[];
    expect(alternatives.length).toBeGreaterThan(0);
    for (const a of alternatives) {
      expect(a.localDate).toBe('2027-02-09');
      expect(Date.parse(a.start)).toBe(Date.parse(`${a.localDate}T${a.localTime}:00-05:00`));
      expect(a.label).toBe(`martedì 9 febbraio alle ${Number(a.localTime.slice(0, 2))}:${a.localTime.slice(3)}`);
    }

    const list = await callTool(server.url, york.token, 'list_patient_appointments', { patientId: patient, sort: 'start', from: '2027-01-01T00:00' });
    expect(list.isError, JSON.stringify(list)).toBeFalsy();
    expect(list.structuredContent.data).toEqual([
      expect.objectContaining({ id: booked.structuredContent.id, localTime: '10:00', label: 'martedì 9 febbraio alle 10:00' }),
    ]);
    // The REST Appointment keeps exactly the contract's fields (spec 2.2): the reading is the tool's.
    const rest = await server.call('GET', `/v1/appointments?patientId=${patient}`, { token: york.token });
    expect(rest.body.data[0].id).toBe(booked.structuredContent.id);
    expect(rest.body.data[0]).not.toHaveProperty('localDate');
    expect(rest.body.data[0]).not.toHaveProperty('label');

    const context = await callTool(server.url, york.token, 'get_caller_context', { from: '+12125550101' });
    expect(context.isError, JSON.stringify(context)).toBeFalsy();
    expect(context.structuredContent.caller.patients[0].nextAppointments[0]).toMatchObject({ localTime: '10:00', label: 'martedì 9 febbraio alle 10:00' });

    // Another patient waits; the cancellation offers them the freed slot, read in New York.
    const waiting = await insertPatient(server, york, york.facilityIds[0]);
    const entry = await callTool(server.url, york.token, 'add_to_waitlist', {
      patientId: waiting,
      calendarId: yorkCal,
      earliest: '2027-02-09T08:00',
      latest: '2027-02-09T12:00',
      channel: 'phone',
      callId: 'wait-ny-1',
    });
    expect(entry.isError, JSON.stringify(entry)).toBeFalsy();
    expect(entry.structuredContent).toMatchObject({
      earliest: '2027-02-09T13:00:00.000Z',
      earliestLocal: { localDate: '2027-02-09', localTime: '08:00', label: 'martedì 9 febbraio alle 8:00' },
      latestLocal: { localTime: '12:00' },
    });
    const cancelled = await callTool(server.url, york.token, 'cancel_appointment', { appointmentId: booked.structuredContent.id, callId: 'cancel-ny-1' });
    expect(cancelled.structuredContent).toMatchObject({ status: 'cancelled', localTime: '10:00' });
    const offers = await callTool(server.url, york.token, 'list_waitlist_offers', {});
    const offer = offers.structuredContent.data.find((o: { entryId: string }) => o.entryId === entry.structuredContent.id);
    expect(offer).toMatchObject({ start: '2027-02-09T15:00:00.000Z', localDate: '2027-02-09', localTime: '10:00', label: 'martedì 9 febbraio alle 10:00' });
  });
});
