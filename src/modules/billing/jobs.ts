/**
 * Periodic jobs of billing: `installment.overdue`, exactly once per installment that passes
 * its due date unpaid (the day after the due date, in the clinic's timezone).
 *
 * Exactly once, even with several processes: one transaction claims a batch with a
 * conditional UPDATE (`overdue_notified_at IS NULL`, rows locked with SKIP LOCKED) and
 * records the events of exactly the rows it updated. A second process skips locked rows and,
 * after a commit, no longer matches them; a rollback releases both the claim and the events.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Job } from '../../jobs/scheduler.js';
import { recordEvent } from '../../events/record.js';

const BATCH = 200;

interface Claimed {
  id: string;
  clinic_id: string;
  payment_plan_id: string;
  patient_id: string;
  facility_id: string | null;
  amount: number;
  amount_paid: number;
  due_date: string;
  /** Never `paid`: the claim skips paid installments. */
  status: 'pending' | 'partially_paid';
}

/** Records the events of newly overdue installments; returns how many it recorded. */
export async function recordOverdueInstallments(db: Kysely<DB>): Promise<number> {
  let total = 0;
  for (;;) {
    const claimed = await db.transaction().execute(async (trx) => {
      const { rows } = await sql<Claimed>`
        UPDATE installments i
           SET overdue_notified_at = now()
          FROM payment_plans p
         WHERE i.id IN (
                 SELECT i2.id
                   FROM installments i2
                   JOIN clinics c ON c.id = i2.clinic_id
                  WHERE i2.overdue_notified_at IS NULL
                    AND i2.status <> 'paid'
                    AND i2.due_date < (now() AT TIME ZONE c.timezone)::date
                  ORDER BY i2.due_date, i2.id
                  LIMIT ${BATCH}
                    FOR UPDATE OF i2 SKIP LOCKED)
           AND i.overdue_notified_at IS NULL
           AND p.id = i.payment_plan_id
        RETURNING i.id, i.clinic_id, i.payment_plan_id, p.patient_id, p.facility_id, i.amount, i.amount_paid, i.due_date, i.status`.execute(trx);
      const plans = [...new Set(rows.map((r) => r.payment_plan_id))];
      // The overdue flag is part of the plan as listed: syncing clients see it via updatedSince.
      if (plans.length > 0)
        await trx
          .updateTable('payment_plans')
          .set({ updated_at: sql`now()` })
          .where('id', 'in', plans)
          .execute();
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
