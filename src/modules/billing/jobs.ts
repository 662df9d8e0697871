/**
 * Periodic jobs of billing: `installment.overdue`, exactly once per installment that passes
 * its due date unpaid (the day after the due date, in the clinic's timezone).
 *
 * Exactly once, even with several processes: one transaction claims a batch with a
 * conditional UPDATE (`overdue_notified_at IS NULL`, rows locked with SKIP LOCKED) and
 * records the events of exactly the rows it updated. A second process skips locked rows and,
 * after a commit, no longer matches them; a rollback releases both the claim and the events.
 */
import type { Db } from '../../db/transaction.js';
import type { Job } from '../../jobs/scheduler.js';
import { recordEvent } from '../../events/record.js';
import { claimOverdueInstallments } from './plan-store.js';

const BATCH = 200;

/** Records the events of newly overdue installments; returns how many it recorded. */
export async function recordOverdueInstallments(db: Db): Promise<number> {
  let total = 0;
  for (;;) {
    const claimed = await db.transaction().execute(async (trx) => {
      const rows = await claimOverdueInstallments(trx, BATCH);
      for (const r of rows) {
        await recordEvent(trx, {
          clinicId: r.clinic_id,
          type: 'installment.overdue',
          facilityId: r.facility_id,
          data: {
            id: r.id,
            paymentPlanId: r.payment_plan_id,
            patientId: r.patient_id,
            amount: Number(r.amount),
            amountPaid: Number(r.amount_paid),
            dueDate: r.due_date,
            status: r.status,
          },
        });
      }
      return rows.length;
    });
    total += claimed;
    if (claimed < BATCH) return total;
  }
}

export function billingJobs(): Job[] {
  return [{ name: 'installments-overdue', everyMs: 60_000, run: (ctx) => recordOverdueInstallments(ctx.db) }];
}
