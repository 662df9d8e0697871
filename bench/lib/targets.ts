/** The routes the benchmarks load, by their place in the OpenAPI document (skipped when absent). */
import { randomUUID } from 'node:crypto';
import type { BenchServer } from './harness.js';

export interface Target {
  name: string;
  /** Method and path as in the OpenAPI document (relative to /v1). */
  method: string;
  docPath: string;
  request: (s: BenchServer, doc: any) => Record<string, unknown>;
  /** false: measured with the server's read caches off (every request reads the database). */
  readCache?: boolean;
  /** The route's target on PostgreSQL at 50 connections: at least this many req/s, p99 under `maxP99Ms`. */
  goal?: { reqPerSec: number; maxP99Ms?: number };
}

let counter = 0;
const unique = () => `${process.pid}${++counter}${randomUUID().slice(0, 8)}`;
/** A phone number no other request of this run sends (Italian mobile ranges, 7 digits of counter). */
const uniquePhone = (prefix: string) => `+39 ${prefix} ${String(counter % 10_000_000).padStart(7, '0')}`;

let bookings = 0;
/** Slots are handed out from tomorrow (UTC midnight) on: the calendar is open around the clock. */
const firstSlot = Math.ceil(Date.now() / 86_400_000 + 1) * 86_400_000;

function queryParamNamed(doc: any, docPath: string, pick: (p: any) => boolean): string | null {
  const params: any[] = doc.paths?.[docPath]?.get?.parameters ?? [];
  return params.find((p) => p.in === 'query' && pick(p))?.name ?? null;
}

export const TARGETS: Target[] = [
  {
    name: 'GET /appointments?limit=50',
    method: 'get',
    docPath: '/appointments',
    request: () => ({ method: 'GET', path: '/v1/appointments?limit=50' }),
  },
  {
    // The page as it is read when the cache does not hold it (after any change to the clinic's
    // appointments, or in a process that just started): the database and serialization on every request.
    name: 'GET /appointments?limit=50 (read cache off)',
    method: 'get',
    docPath: '/appointments',
    readCache: false,
    goal: { reqPerSec: 1600 },
    request: () => ({ method: 'GET', path: '/v1/appointments?limit=50' }),
  },
  {
    name: 'GET /appointments/{id}',
    method: 'get',
    docPath: '/appointments/{id}',
    request: (s) => ({ method: 'GET', path: `/v1/appointments/${s.seeded.appointmentId}` }),
  },
  {
    name: 'GET /patients/search',
    method: 'get',
    docPath: '/patients/search',
    request: (_s, doc) => {
      const q =
        queryParamNamed(doc, '/patients/search', (p) => (p.schema?.minLength ?? 0) >= 1 && p.schema?.type === 'string' && !/facility|cursor/i.test(p.name)) ??
        'q';
      return { method: 'GET', path: `/v1/patients/search?${q}=${encodeURIComponent('Mario Rosi')}` };
    },
  },
  {
    name: 'POST /patients',
    method: 'post',
    docPath: '/patients',
    request: () => ({
      method: 'POST',
      path: '/v1/patients',
      setupRequest: (req: any) => {
        const id = unique();
        return {
          ...req,
          body: JSON.stringify({
            firstName: 'Bench',
            lastName: `Paziente ${id}`,
            email: `bench.${id}@example.com`,
            phone: uniquePhone('347'),
          }),
        };
      },
    }),
    goal: { reqPerSec: 1000, maxP99Ms: 100 },
  },
  {
    name: 'POST /leads',
    method: 'post',
    docPath: '/leads',
    request: () => ({
      method: 'POST',
      path: '/v1/leads',
      setupRequest: (req: any) => {
        const id = unique();
        return {
          ...req,
          body: JSON.stringify({
            firstName: 'Bench',
            lastName: `Contatto ${id}`,
            email: `lead.${id}@example.com`,
            phone: uniquePhone('348'),
            source: 'website',
          }),
        };
      },
    }),
    goal: { reqPerSec: 1500 },
  },
  {
    // An inbound call from a number nobody has: the call, the lead it becomes, the lead's
    // activity and two events (the heaviest path of POST /calls).
    name: 'POST /calls',
    method: 'post',
    docPath: '/calls',
    request: () => ({
      method: 'POST',
      path: '/v1/calls',
      setupRequest: (req: any) => {
        const id = unique();
        return {
          ...req,
          body: JSON.stringify({
            externalCallId: `bench-${id}`,
            direction: 'inbound',
            from: uniquePhone('349'),
            to: '+39 02 1234 5678',
            startedAt: new Date().toISOString(),
            durationSeconds: 95,
            outcome: 'information',
            caller: { firstName: 'Bench', lastName: `Chiamante ${id}` },
          }),
        };
      },
    }),
  },
  {
    // Each request books a slot of its own: doctor by doctor, then the next 5-minute slot.
    name: 'POST /appointments (booking)',
    method: 'post',
    docPath: '/appointments',
    request: (s) => ({
      method: 'POST',
      path: '/v1/appointments',
      setupRequest: (req: any) => {
        const n = bookings++;
        const doctors = s.seeded.calendarDoctorIds;
        const free = s.seeded.freeSlots;
        // Past the dataset's free slots the bookings take taken ones again: they answer 409 (non-2xx).
        const slot = free?.length
          ? free[n % free.length]!
          : {
              doctorId: doctors[n % doctors.length]!,
              start: new Date(firstSlot + Math.floor(n / doctors.length) * s.seeded.slotMinutes * 60_000).toISOString(),
            };
        return {
          ...req,
          body: JSON.stringify({
            calendarId: s.seeded.calendarId,
            patientId: s.seeded.patientId,
            doctorId: slot.doctorId,
            start: slot.start,
            origin: 'voice',
            type: 'checkup',
          }),
        };
      },
    }),
    goal: { reqPerSec: 1500 },
  },
  {
    name: 'GET /facilities/{id}',
    method: 'get',
    docPath: '/facilities/{id}',
    request: (s) => ({ method: 'GET', path: `/v1/facilities/${s.seeded.facilityId}` }),
  },
];
