/** The front door of src/modules/appointments: what code outside the module uses of it (test/layers.test.ts). */
export { appointmentBodyIssues, bookingBodyIssues, endAfterStart } from './checks.js';
export { eventData } from './events.js';
export { APPOINTMENT_CATEGORIES, APPOINTMENT_TYPES, BLOCKING_EXCLUDED, MOVABLE, overlapReason, STATUS_EVENTS, TRANSITIONS } from './model.js';
export type { AppointmentOrigin, AppointmentRow, AppointmentStatus } from './model.js';
export { APPOINTMENT_REASONS } from './reasons.js';
export {
  AppointmentChangesBody,
  AppointmentDetailSchema,
  AppointmentListQuery,
  AppointmentSchema,
  AppointmentStatusBody,
  BookAppointmentBody,
  NewAppointmentBody,
  RescheduleBody,
} from './schema.js';
export type { AppointmentChanges, AppointmentView, BookInput, ListQuery, NewAppointment, RescheduleInput } from './schema.js';
export {
  findAppointment,
  insertAppointment,
  insertAppointmentUnlessBusy,
  listAppointments,
  listFilters,
  lockAppointment,
  recordRescheduled,
  withOverlapCheck,
} from './service.js';
export type { AppointmentInsert } from './service.js';
export { appointmentById, hasAppointment, liveAppointmentAt, moveAppointment, updateRow } from './store.js';
export { toView } from './view.js';
