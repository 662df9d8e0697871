/** Facilities on the wire (spec 2.11): the schema /v1 and the back office serialize with. */
import { Type, type Static } from 'typebox';
import { Email, Nullable, OutputTimestamp, Uuid } from '../../core/schemas.js';
import { WeekScheduleSchema } from './schedule.js';

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

const Text = (max: number) => Type.Optional(Nullable(Type.String({ maxLength: max })));

/** A new facility (back office): the schedule is checked for order and overlaps beyond its shape (scheduleIssues). */
export const NewFacilitySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    street: Text(200),
    city: Text(100),
    province: Text(100),
    zipCode: Text(20),
    phone: Text(40),
    email: Type.Optional(Nullable(Email(200))),
    isMainLocation: Type.Optional(Type.Boolean()),
    avgAppointmentMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 600 })),
    workingSchedule: Type.Optional(Nullable(WeekScheduleSchema)),
  },
  { additionalProperties: false },
);
export type NewFacility = Static<typeof NewFacilitySchema>;

/** Only the fields sent change; `workingSchedule: null` removes the schedule. */
export const FacilityChangesSchema = Type.Partial(NewFacilitySchema, { additionalProperties: false });
export type FacilityChanges = Static<typeof FacilityChangesSchema>;

/** Back office: a facility just created, and a clinic's facilities as the back office lists them. */
export const CreatedFacilitySchema = Type.Object({ id: Uuid(), name: Type.String() }, { additionalProperties: false });
export type CreatedFacility = Static<typeof CreatedFacilitySchema>;
export const FacilitySummarySchema = Type.Object({ id: Uuid(), name: Type.String(), city: Nullable(Type.String()) });
