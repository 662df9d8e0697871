/** Appointment values of spec 2.2 and 3.4 (the API view: ./view.ts; the event data of spec 6.2: ./events.ts). */
import type { Selectable } from 'kysely';
import { hasSqlState, SQLSTATE } from '../../db/errors.js';
import type { AppointmentsTable } from '../../db/tables/core.js';

export { APPOINTMENT_CATEGORIES, APPOINTMENT_TYPES, BLOCKING_EXCLUDED } from '../../core/agenda.js';

export type AppointmentRow = Selectable<AppointmentsTable>;

export const APPOINTMENT_STATUSES = [
  'draft',
  'scheduled',
  'confirmed',
  'checked_in',
  'in_progress',
  'completed',
  'cancelled',
  'no_show',
  'pending',
  'postponed',
] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];
export const APPOINTMENT_ORIGINS = ['manual', 'bot', 'voice', 'api'] as const;
export type AppointmentOrigin = (typeof APPOINTMENT_ORIGINS)[number];

/**
 * Allowed status transitions (spec 3.4 leaves them open; this is our choice).
 * A transition not listed here is `409 conflict`, reason `invalid_transition`.
 * completed, cancelled and no_show are final.
 */
export const TRANSITIONS: Record<AppointmentStatus, readonly AppointmentStatus[]> = {
  draft: ['scheduled', 'pending', 'cancelled'],
  pending: ['scheduled', 'confirmed', 'cancelled'],
  scheduled: ['confirmed', 'checked_in', 'cancelled', 'no_show', 'postponed'],
  confirmed: ['checked_in', 'cancelled', 'no_show', 'postponed'],
  checked_in: ['in_progress', 'completed'],
  in_progress: ['completed'],
  postponed: ['scheduled', 'cancelled'],
  completed: [],
  cancelled: [],
  no_show: [],
};

/** Statuses whose time can still be moved (reschedule). */
export const MOVABLE: ReadonlySet<string> = new Set(['draft', 'pending', 'scheduled', 'confirmed', 'postponed']);

/** The transitions that announce themselves (spec 6.3). */
export const STATUS_EVENTS = {
  confirmed: 'appointment.confirmed',
  checked_in: 'appointment.checked_in',
  completed: 'appointment.completed',
  no_show: 'appointment.no_show',
  cancelled: 'appointment.cancelled',
} as const;

/** Maps the overlap constraints' violation to `409 conflict` (doctor_busy / chair_busy), or null. */
export function overlapReason(error: unknown): 'doctor_busy' | 'chair_busy' | null {
  if (!hasSqlState(error, SQLSTATE.exclusionViolation)) return null;
  const e = error as { constraint?: string; message?: string };
  const text = `${e.constraint ?? ''} ${e.message ?? ''}`;
  return text.includes('appointments_chair_overlap') ? 'chair_busy' : 'doctor_busy';
}
