/**
 * The closed sets of `details.reason` each appointment operation can answer (route
 * `config.reasons`). The back office's overlaps are `doctor_busy` / `chair_busy`; the API's
 * bookings answer `409 no_availability` instead (its own code, with alternatives).
 */
import type { DeclaredReasons } from '../../core/errors.js';

const OVERLAP = ['doctor_busy', 'chair_busy'] as const;
/** The API may only move or cancel what a calendar booked, and not inside its notice. */
const CALENDAR_RULES = ['outside_calendar', 'cancellation_notice'] as const;

export const APPOINTMENT_REASONS = {
  adminCreate: { conflict: OVERLAP },
  adminUpdate: { conflict: ['not_reschedulable', ...OVERLAP] },
  adminSetStatus: { conflict: ['invalid_transition', ...OVERLAP] },
  /** Booking through the API: a calendar closed to the key's channel or to new patients; a hold used for another patient. */
  apiBook: { conflict: ['hold_used'], forbidden: ['not_bookable_by_agent', 'new_patients_not_accepted'] },
  apiReschedule: { conflict: ['not_reschedulable'], forbidden: [...CALENDAR_RULES, 'not_bookable_by_agent'] },
  apiCancel: { conflict: ['invalid_transition'], forbidden: CALENDAR_RULES },
} as const satisfies Record<string, DeclaredReasons>;
