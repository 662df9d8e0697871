/**
 * The agenda's words that several modules share: the kinds of appointment (an appointment has
 * them, a calendar gives them to its bookings, a recall asks for them), the statuses whose
 * appointments take no time, and a slot (what a calendar offers, a hold keeps, a move goes to). They sit here, below the modules, so that appointments and
 * calendars can both read them without importing each other.
 */

export const APPOINTMENT_TYPES = ['checkup', 'treatment', 'consultation', 'emergency', 'other'] as const;
export const APPOINTMENT_CATEGORIES = ['recall', 'treatment_plan', 'first_visit', 'case_study', 'standard'] as const;

/**
 * The statuses whose appointments take no doctor's or chair's time: the predicate of the overlap
 * constraints of 0020_agenda.sql, and what every reading of busy time leaves out.
 */
export const BLOCKING_EXCLUDED = ['cancelled', 'no_show', 'postponed', 'draft'] as const;

/** A slot of a calendar: its time (ISO timestamps) and the doctor and chair it takes. */
export interface Slot {
  start: string;
  end: string;
  doctorId: string | null;
  chairId: string | null;
}
