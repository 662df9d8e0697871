/** The API's view of an appointment (spec 3.4), from its row. */
import type { AppointmentRow, AppointmentStatus } from './model.js';
import { localReading } from '../calendars/labels.js';
import type { AppointmentView } from './schema.js';

/** The columns the API's view reads without the clinical notes: what the list's JSON is written from (store.ts, APPOINTMENT_JSON). */
export const VIEW_COLUMNS = [
  'id',
  'patient_id',
  'facility_id',
  'doctor_id',
  'chair_id',
  'calendar_id',
  'start_at',
  'end_at',
  'status',
  'type',
  'category',
  'title',
  'reason',
  'origin',
  'treatment_plan_id',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof AppointmentRow)[];
export type ViewedAppointmentRow = Pick<AppointmentRow, (typeof VIEW_COLUMNS)[number]>;

/** The API's view, its start read in the clinic's zone `tz`; with `clinical`, the notes too (read from a whole row). */
export function toView(row: ViewedAppointmentRow, tz: string): AppointmentView;
export function toView(row: AppointmentRow, tz: string, clinical: boolean): AppointmentView;
export function toView(row: ViewedAppointmentRow & Partial<AppointmentRow>, tz: string, clinical = false): AppointmentView {
  const view: AppointmentView = {
    id: row.id,
    patientId: row.patient_id,
    facilityId: row.facility_id,
    doctorId: row.doctor_id,
    chairId: row.chair_id,
    calendarId: row.calendar_id,
    start: row.start_at.toISOString(),
    end: row.end_at.toISOString(),
    status: row.status as AppointmentStatus,
    type: row.type as AppointmentView['type'],
    category: row.category as AppointmentView['category'],
    title: row.title,
    reason: row.reason,
    origin: row.origin as AppointmentView['origin'],
    treatmentPlanId: row.treatment_plan_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...localReading(row.start_at, tz),
  };
  if (clinical) {
    view.notes = row.notes ?? null;
    view.clinicalNotes = row.clinical_notes ?? null;
    view.completionNotes = row.completion_notes ?? null;
  }
  return view;
}

/**
 * A list row's JSON (written by the database from the stored fields: store.ts) with its start
 * read in `tz` appended, as toView writes it. The start is read from the text itself: the first
 * `"start":"` is the field's (a string value escapes its quotes), and parsing it costs less than
 * decoding the column too.
 */
export function withLocalReading(json: string, tz: string): string {
  const at = json.indexOf('"start":"') + 9;
  const r = localReading(new Date(json.slice(at, json.indexOf('"', at))), tz);
  return `${json.slice(0, -1)},"localDate":"${r.localDate}","localTime":"${r.localTime}","label":${JSON.stringify(r.label)}}`;
}
