/**
 * `appointment.confirmation_due`, exactly once per appointment and rule step, so an SMS or
 * WhatsApp integration asks by webhook without polling the list.
 *
 * Each round, per clinic with rules and outside its quiet hours (the event waits for their end),
 * the open appointments the worklist would list now get the event of their latest step whose
 * time has come; a step passed over (an appointment booked after its time, a round in the quiet
 * hours) is not announced late once a later one is due. Exactly once, even with several
 * processes: the step's mark (its primary key) and the event are written in one transaction;
 * a second process waits on the first's uncommitted mark, then inserts nothing.
 */
import type { Db } from '../../db/transaction.js';
import type { Job } from '../../jobs/scheduler.js';
import { recordEvent } from '../../events/record.js';
import { localReading } from '../../lib/local-reading.js';
import { afterQuietHours } from '../../lib/quiet-hours.js';
import type { ConfirmationChannel } from './schema.js';
import * as store from './store.js';

/** Records the due events of every clinic; returns how many it recorded. */
export async function recordConfirmationsDue(db: Db, now = new Date()): Promise<number> {
  let total = 0;
  for (const { rules, timezone } of await store.clinicsWithRules(db)) {
    if (afterQuietHours(now, timezone, rules.quiet_start, rules.quiet_end).getTime() !== now.getTime()) continue;
    total += await db.transaction().execute(async (trx) => {
      let recorded = 0;
      for (const a of await store.dueNow(trx, rules, timezone, now)) {
        const { step, due_at: dueAt } = a;
        if (!(await store.markDue(trx, rules.clinic_id, a.id, step, dueAt))) continue;
        await recordEvent(trx, {
          clinicId: rules.clinic_id,
          type: 'appointment.confirmation_due',
          facilityId: a.facility_id,
          data: {
            appointmentId: a.id,
            patientId: a.patient_id,
            facilityId: a.facility_id,
            calendarId: a.calendar_id,
            start: a.start_at.toISOString(),
            ...localReading(a.start_at, timezone),
            step,
            dueAt: dueAt.toISOString(),
            attempts: a.attempts ?? 0,
            channels: rules.channels as ConfirmationChannel[],
          },
        });
        recorded++;
      }
      return recorded;
    });
  }
  return total;
}

export function confirmationJobs(): Job[] {
  return [{ name: 'confirmations-due', everyMs: 60_000, run: (ctx) => recordConfirmationsDue(ctx.db) }];
}
