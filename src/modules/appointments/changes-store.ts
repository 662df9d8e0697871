/**
 * The SQL of an appointment's move through the API (changes.ts). Kept beside it, apart from the
 * module's other statements, so that the move out of calendars/booking.ts touched no file of the
 * agenda's own writes (service.ts); it belongs with them in the module's store.
 */
import { sql } from 'kysely';
import type { Transaction } from '../../db/transaction.js';
import type { Slot } from '../calendars/service.js';
import type { AppointmentOrigin, AppointmentRow } from './model.js';

/** Moves the appointment to `slot` of a calendar of `facilityId` (stamping `origin` when given) and bumps its version. */
export async function moveAppointment(
  trx: Transaction,
  id: string,
  to: { slot: Slot; facilityId: string; origin: AppointmentOrigin | null },
): Promise<AppointmentRow> {
  return trx
    .updateTable('appointments')
    .set({
      start_at: to.slot.start,
      end_at: to.slot.end,
      doctor_id: to.slot.doctorId,
      chair_id: to.slot.chairId,
      facility_id: to.facilityId,
      ...(to.origin ? { origin: to.origin } : {}),
      updated_at: sql`now()`,
      version: sql`version + 1`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
