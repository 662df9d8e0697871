/** The routes the benchmarks load, by their place in the OpenAPI document (skipped when absent). */
import { randomUUID } from 'node:crypto';
import type { BenchServer } from './harness.js';

export interface Target {
  name: string;
  /** Method and path as in the OpenAPI document (relative to /v1). */
  method: string;
  docPath: string;
  request: (s: BenchServer, doc: any) => Record<string, unknown>;
}

let counter = 0;
const unique = () => `${process.pid}${++counter}${randomUUID().slice(0, 8)}`;

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
            phone: `+39 347 ${String(counter).padStart(7, '0')}`,
          }),
        };
      },
    }),
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
            phone: `+39 348 ${String(counter).padStart(7, '0')}`,
            source: 'website',
          }),
        };
      },
    }),
  },
  {
    name: 'GET /facilities/{id}',
    method: 'get',
    docPath: '/facilities/{id}',
    request: (s) => ({ method: 'GET', path: `/v1/facilities/${s.seeded.facilityId}` }),
  },
];
