/** Availability an agent can say: Italian labels in the clinic's zone, spread, empty reasons. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationTypes } from '../../../packages/client/src/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { at, makeCalendar } from '../../helpers/seed.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
describe('availability an agent can say', () => {
  it('labels slots in Italian in the clinic’s zone, spreads them, and explains an empty answer', async () => {
    const own = await server.factories.tenant();
    const cal = await makeCalendar(server, own, {
      workingHours: {
        tue: [
          { open: '09:00', close: '12:00' },
          { open: '15:00', close: '17:00' },
        ],
        thu: [{ open: '09:00', close: '10:00' }],
      },
    });
    const api = server.api(own.token);
    type AvailabilityQuery = NonNullable<OperationTypes['getCalendarAvailability']['parameters']['query']>;
    const availability = (query?: AvailabilityQuery) => api.callWithResponse('getCalendarAvailability', { params: { path: { id: cal.id }, query } });
    const window = { from: at(1, 0), to: at(15, 0) };
    const { data: res, response } = await availability(window);
    expect(response.status).toBe(200);
    const first = res.data[0]!;
    expect(first.localTime).toBe('09:00');
    expect(first.label).toMatch(/^(martedì|giovedì) \d{1,2} [a-z]+ alle 9:00$/);
    expect(first.partOfDay).toBe('morning');
    expect(res).toMatchObject({ emptyReason: null, nextAvailable: null });

    const byDay = (await availability({ ...window, spread: 'day' })).data;
    const days = byDay.data.map((s) => s.localDate);
    expect(new Set(days).size).toBe(days.length);
    expect(days.length).toBeGreaterThanOrEqual(3);
    const byPart = (await availability({ ...window, spread: 'part_of_day', limit: 3 })).data;
    expect(byPart.data).toHaveLength(3);
    expect(byPart.data.some((s) => s.partOfDay === 'afternoon')).toBe(true);
    // One slot per part of a day, in time order; the limit cuts the spread list, not the slots before it.
    const parts = byPart.data.map((s) => `${s.localDate} ${s.partOfDay}`);
    expect(new Set(parts).size).toBe(3);
    const starts = byPart.data.map((s) => s.start);
    expect([...starts].sort()).toEqual(starts);
    // Without a spread, a limit answers the first free slots of the window, labelled.
    const all = (await availability(window)).data;
    const firstTwo = (await availability({ ...window, limit: 2 })).data;
    expect(firstTwo.data).toEqual(all.data.slice(0, 2));
    expect(firstTwo.data[1]!.label).toMatch(/ alle \d{1,2}:\d{2}$/);

    // A Monday-only window is closed; nextAvailable says when.
    const monday = new Date(Date.now() + 86_400_000);
    while (monday.getUTCDay() !== 1) monday.setUTCDate(monday.getUTCDate() + 1);
    monday.setUTCHours(6, 0, 0, 0);
    const closed = (await availability({ from: monday.toISOString(), to: new Date(monday.getTime() + 12 * 3_600_000).toISOString() })).data;
    expect(closed).toMatchObject({ data: [], emptyReason: 'closed' });
    expect(closed.window).not.toBeNull();
    expect(Date.parse(closed.nextAvailable!.start)).toBeGreaterThan(monday.getTime());
    const far = new Date(Date.now() + 90 * 86_400_000).toISOString();
    const beyond = (await availability({ from: far })).data;
    expect(beyond).toMatchObject({ data: [], window: null, emptyReason: 'beyond_horizon', nextAvailable: null });
    await server.admin('PATCH', `/admin/v1/clinics/${own.clinicId}/calendars/${cal.id}`, { active: false });
    const inactive = (await availability()).data;
    expect(inactive).toMatchObject({ data: [], window: null, emptyReason: 'calendar_inactive' });
  });

  it('says fully_booked when every slot of the window is taken', async () => {
    const own = await server.factories.tenant();
    const cal = await makeCalendar(server, own, { slotMinutes: 60 });
    const from = at(2, 9);
    const to = at(2, 10);
    const api = server.api(own.token);
    await api.call('createSlotHold', { params: { path: { id: cal.id } }, body: { start: from, holderRef: 'full' } });
    const res = await api.call('getCalendarAvailability', { params: { path: { id: cal.id }, query: { from, to } } });
    expect(res).toMatchObject({ data: [], emptyReason: 'fully_booked' });
    expect(res.nextAvailable!.start).toBe(to);
  });
});
