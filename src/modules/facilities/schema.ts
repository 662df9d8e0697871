/** Facilities on the wire (spec 2.11): the schema /v1 and the back office serialize with. */
import { Type } from 'typebox';
import { Nullable, OutputTimestamp, Uuid } from '../../core/schemas.js';

export const FacilitySchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    street: Nullable(Type.String()),
    city: Nullable(Type.String()),
    province: Nullable(Type.String()),
    zipCode: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    email: Nullable(Type.String()),
    isMainLocation: Type.Boolean(),
    avgAppointmentMinutes: Type.Number(),
    workingSchedule: Type.Unknown({ description: 'Opening hours, as the clinic stores them' }),
    updatedAt: OutputTimestamp(),
  },
  { additionalProperties: false, title: 'Facility' },
);
