import { createAppointment } from '../../../src/modules/scheduling/agenda.js';
import { openConversation } from '../../../src/modules/conversations/service.js';
import { createTask } from '../../../src/modules/tasks/service.js';
import { bookAppointment } from '../../../src/modules/scheduling/booking.js';
import { at, insertPatient, makeCalendar } from '../../helpers/seed.js';
import type { MatrixCase } from '../matrix.js';

let day = 1;

export const cases: MatrixCase[] = [
  {
    operationId: 'listAppointments',
    method: 'GET',
    scopes: ['appointments:read'],
    resource: false,
    prepare: async () => ({ path: '/v1/appointments?sort=start' }),
  },
  {
    operationId: 'getAppointment',
    method: 'GET',
    scopes: ['appointments:read'],
    resource: true,
    prepare: async (server, tenant) => {
      const patientId = await insertPatient(server, tenant);
      const row = await createAppointment(server.ctx.db, await server.actor(tenant.clinicId), {
        patientId,
        start: at(day, 8),
        end: at(day++, 8, 30),
        facilityId: tenant.facilityIds[0],
      });
      return { path: `/v1/appointments/${row.id}` };
    },
  },
  {
    operationId: 'createAppointment',
    method: 'POST',
    scopes: ['appointments:write'],
    resource: false,
    okStatus: 201,
    prepare: async (server, tenant) => {
      const cal = await makeCalendar(server, tenant);
      const patientId = await insertPatient(server, tenant);
      return { path: '/v1/appointments', body: { calendarId: cal.id, patientId, start: at(2, 10), origin: 'bot' } };
    },
  },
  {
    operationId: 'rescheduleAppointment',
    method: 'PATCH',
    scopes: ['appointments:write'],
    resource: true,
    prepare: async (server, tenant) => {
      const cal = await makeCalendar(server, tenant);
      const patientId = await insertPatient(server, tenant);
      const row = await bookAppointment(server.ctx.db, await server.actor(tenant.clinicId), { calendarId: cal.id, patientId, start: at(3, 10) });
      return { path: `/v1/appointments/${row.id}`, body: { start: at(3, 11) } };
    },
  },
  {
    operationId: 'cancelAppointment',
    method: 'POST',
    scopes: ['appointments:write'],
    resource: true,
    prepare: async (server, tenant) => {
      const cal = await makeCalendar(server, tenant);
      const patientId = await insertPatient(server, tenant);
      const row = await bookAppointment(server.ctx.db, await server.actor(tenant.clinicId), { calendarId: cal.id, patientId, start: at(3, 10) });
      return { path: `/v1/appointments/${row.id}/cancel` };
    },
  },
  {
    operationId: 'getCalendarAvailability',
    method: 'GET',
    scopes: ['appointments:read'],
    resource: true,
    prepare: async (server, tenant) => {
      const cal = await makeCalendar(server, tenant);
      return { path: `/v1/calendars/${cal.id}/availability?from=${encodeURIComponent(at(1, 9))}&to=${encodeURIComponent(at(1, 12))}` };
    },
  },
  {
    operationId: 'getConversation',
    method: 'GET',
    scopes: ['messages:read'],
    resource: true,
    prepare: async (server, tenant) => {
      const c = await openConversation(server.ctx.db, await server.actor(tenant.clinicId), { phone: '3331234567', facilityId: tenant.facilityIds[0] });
      return { path: `/v1/conversations/${c.id}` };
    },
  },
  {
    operationId: 'listConversationMessages',
    method: 'GET',
    scopes: ['messages:read'],
    resource: true,
    prepare: async (server, tenant) => {
      const c = await openConversation(server.ctx.db, await server.actor(tenant.clinicId), { phone: '3331234567', facilityId: tenant.facilityIds[0] });
      return { path: `/v1/conversations/${c.id}/messages` };
    },
  },
  {
    operationId: 'updateConversationBot',
    method: 'PATCH',
    scopes: ['messages:write'],
    resource: true,
    prepare: async (server, tenant) => {
      const c = await openConversation(server.ctx.db, await server.actor(tenant.clinicId), { phone: '3331234567', facilityId: tenant.facilityIds[0] });
      return { path: `/v1/conversations/${c.id}/bot`, body: { state: 'in_pausa', pausedUntil: new Date(Date.now() + 3_600_000).toISOString() } };
    },
  },
  {
    operationId: 'listTasks',
    method: 'GET',
    scopes: ['tasks:read'],
    resource: false,
    prepare: async () => ({ path: '/v1/tasks' }),
  },
  {
    operationId: 'createTask',
    method: 'POST',
    scopes: ['tasks:write'],
    resource: false,
    okStatus: 201,
    prepare: async (_server, tenant) => ({ path: '/v1/tasks', body: { title: 'Richiamare', facilityId: tenant.facilityIds[0] } }),
  },
  {
    operationId: 'getTask',
    method: 'GET',
    scopes: ['tasks:read'],
    resource: true,
    prepare: async (server, tenant) => {
      const t = await createTask(server.ctx.db, await server.actor(tenant.clinicId), { title: 'Richiamare', facilityId: tenant.facilityIds[0] });
      return { path: `/v1/tasks/${t.id}` };
    },
  },
  {
    operationId: 'updateTask',
    method: 'PATCH',
    scopes: ['tasks:write'],
    resource: true,
    prepare: async (server, tenant) => {
      const t = await createTask(server.ctx.db, await server.actor(tenant.clinicId), { title: 'Richiamare', facilityId: tenant.facilityIds[0] });
      return { path: `/v1/tasks/${t.id}`, body: { status: 'done' } };
    },
  },
  {
    operationId: 'listPaymentPlans',
    method: 'GET',
    scopes: ['billing:read'],
    resource: false,
    prepare: async () => ({ path: '/v1/payment-plans?state=all' }),
  },
];
