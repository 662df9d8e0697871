import { bookAppointment } from '../../../src/modules/scheduling/booking.js';
import { at, insertPatient, makeCalendar } from '../../helpers/seed.js';
import type { MatrixCase } from '../matrix.js';

let hour = 0;

export const cases: MatrixCase[] = [
  { operationId: 'listConfirmations', method: 'GET', scopes: ['appointments:read'], resource: false, prepare: async () => ({ path: '/v1/confirmations' }) },
  {
    operationId: 'createConfirmationAttempt',
    method: 'POST',
    scopes: ['appointments:write'],
    resource: true,
    okStatus: 201,
    prepare: async (server, tenant) => {
      const cal = await makeCalendar(server, tenant);
      const patientId = await insertPatient(server, tenant);
      const booked = await bookAppointment(server.ctx.db, await server.actor(tenant.clinicId), {
        calendarId: cal.id,
        patientId,
        start: at(3, 8, (hour++ % 20) * 30),
      });
      return { path: `/v1/appointments/${booked.id}/confirmation-attempts`, body: { channel: 'sms', outcome: 'no_answer' } };
    },
  },
];
