/**
 * `dental-clinic trigger <type>` and `dental-clinic listen` (the pattern of Stripe's CLI):
 * a sample event of any type in a test clinic, recorded through the outbox like a real one
 * (so destinations and `listen` receive it), and the events of a clinic read in order.
 * Only a test clinic: a live clinic's integrations must never see made-up events.
 */
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import type { Db } from '../../db/transaction.js';
import type { EventType } from '../../events/catalogue.js';
import { recordEvent, type NewEvent, type RecordedEvent } from '../../events/record.js';
import { readClinic } from '../clinics/index.js';

/** A sample event: `data` is the type's documented example with fresh ids (sampleData of src/event-schemas.ts, above the modules). */
interface SampleEvent {
  type: EventType;
  facilityId: string | null;
  data: Record<string, unknown>;
}

/**
 * Records a sample event of any type: its `data` the type's documented example (the `webhooks`
 * section of the OpenAPI document) with fresh ids and the given facility, so a receiver sees
 * the type's real shape.
 */
export async function triggerSampleEvent(db: Db, actor: Actor, sample: SampleEvent): Promise<RecordedEvent> {
  return db.transaction().execute(async (trx) => {
    const clinic = await readClinic(trx, actor.clinicId);
    if (!clinic) throw ApiError.notFound();
    if (clinic.mode !== 'test') throw ApiError.forbidden('live_clinic');
    // One type at run time: the data is that type's, which the compiler cannot follow through a variable type.
    const event = { clinicId: actor.clinicId, ...sample } as NewEvent;
    return recordEvent(trx, event);
  });
}
