/**
 * `dental-clinic trigger <type>` and `dental-clinic listen` (the pattern of Stripe's CLI):
 * a sample event of any type in a test clinic, recorded through the outbox like a real one
 * (so destinations and `listen` receive it), and the events of a clinic read in order.
 * Only a test clinic: a live clinic's integrations must never see made-up events.
 */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import type { Db } from '../../db/transaction.js';
import type { EventType } from '../../events/catalogue.js';
import { recordEvent, type RecordedEvent } from '../../events/record.js';

/** Records a sample event of `type`: `data` is `{ id, sample: true }`, not the type's own shape. */
export async function triggerSampleEvent(db: Db, actor: Actor, type: EventType, facilityId: string | null): Promise<RecordedEvent> {
  return db.transaction().execute(async (trx) => {
    const clinic = await trx.selectFrom('clinics').select('mode').where('id', '=', actor.clinicId).executeTakeFirst();
    if (!clinic) throw ApiError.notFound();
    if (clinic.mode !== 'test') throw ApiError.forbidden('live_clinic');
    return recordEvent(trx, { clinicId: actor.clinicId, type, facilityId, data: { id: randomUUID(), sample: true } });
  });
}
