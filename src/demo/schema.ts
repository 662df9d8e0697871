/** A test clinic's reset on the wire (`POST /admin/v1/clinics/{clinicId}/demo-reset`). */
import { Type, type Static } from 'typebox';
import { Uuid } from '../core/schemas.js';

export const DemoResetSchema = Type.Object(
  {
    clinicId: Uuid(),
    deleted: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description: 'Rows deleted per table (patients, appointments, calendars, …)',
      examples: [{ patients: 52, appointments: 24, calendars: 4 }],
    }),
    facilityIds: Type.Array(Uuid(), { description: 'The two facilities the demo agenda was seeded in (made when the clinic had fewer)' }),
    patients: Type.Integer({ minimum: 0, description: 'Patients seeded' }),
    calendars: Type.Integer({ minimum: 0, description: 'Calendars seeded' }),
  },
  { additionalProperties: false, title: 'DemoReset' },
);

export type DemoReset = Static<typeof DemoResetSchema>;
