/**
 * The outbox (spec 6.2). A service calls recordEvent inside the transaction of its change:
 * the event commits with the change, or neither does. `data` must never hold health data;
 * linked resources appear as ids only.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Tx } from '../context.js';
import { EVENT_SCOPES, type EventType } from './catalogue.js';

/** Channel notified when events commit, so delivery workers wake at once. */
export const EVENTS_CHANNEL = 'dcm_events';

export interface NewEvent {
  clinicId: string;
  type: EventType;
  facilityId: string | null;
  data: Record<string, unknown>;
}

export interface RecordedEvent {
  id: string;
  type: string;
}

export async function recordEvent(trx: Tx, event: NewEvent): Promise<RecordedEvent> {
  return insertEvent(trx, event.clinicId, event.type, EVENT_SCOPES[event.type], event.facilityId, event.data);
}

/**
 * Low-level insert shared by recordEvent and the `events.skipped` records (spec 6.4),
 * whose scope is the scope of the type they stand for.
 */
export async function insertEvent(
  trx: Tx,
  clinicId: string,
  type: string,
  scope: string,
  facilityId: string | null,
  data: Record<string, unknown>,
): Promise<RecordedEvent> {
  const id = randomUUID();
  await trx
    .insertInto('events')
    .columns(['id', 'clinic_id', 'type', 'facility_id', 'scope', 'livemode', 'data'])
    .expression(
      trx
        .selectFrom('clinics')
        .select([
          sql.lit(id).as('id'),
          'id as clinic_id',
          sql.val(type).as('type'),
          sql.val(facilityId).$castTo<string | null>().as('facility_id'),
          sql.val(scope).as('scope'),
          sql<boolean>`mode = 'live'`.as('livemode'),
          sql.val(JSON.stringify(data)).as('data'),
        ])
        .where('id', '=', clinicId),
    )
    .execute();
  await sql`SELECT pg_notify(${EVENTS_CHANNEL}, ${clinicId})`.execute(trx);
  return { id, type };
}
