/** The API's view of an appointment (spec 3.4), from its row. */
import type { AppointmentRow, AppointmentStatus } from './model.js';
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
type ViewedAppointmentRow = Pick<AppointmentRow, (typeof VIEW_COLUMNS)[number]>;

/** The API's view; with `clinical`, the notes too (read from a whole row). */
export function toView(row: ViewedAppointmentRow): AppointmentView;
export function toView(row: AppointmentRow, clinical: boolean): AppointmentView;
export function toView(row: ViewedAppointmentRow & Partial<AppointmentRow>, clinical = false): AppointmentView {
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
  };
  if (clinical) {
    view.notes = row.notes ?? null;
    view.clinicalNotes = row.clinical_notes ?? null;
    view.completionNotes = row.completion_notes ?? null;
  }
  return view;
}
