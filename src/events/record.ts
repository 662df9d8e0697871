/**
 * The outbox (spec 6.2). A service calls recordEvent inside the transaction of its change:
 * the event commits with the change, or neither does. `data` must never hold health data;
 * linked resources appear as ids only.
 *
 * Recording also fans the event out (src/events/fan-out.ts): one delivery row per
 * destination that may receive it, in the same transaction, so a committed event always
 * has its deliveries. Then a NOTIFY on `dcm_events` wakes the delivery workers at commit
 * (none while a worker is polling under load: src/modules/webhooks/README.md, invariant 5).
 *
 * Spec 6.4, handled here:
 * - `no_active_key`: while the clinic has no active key (every key revoked or expired) the
 *   event is not created; the missed type is remembered in `event_gaps`. The first event
 *   recorded once a key is active again (or the `flush-event-gaps` job, whichever comes
 *   first) records one `events.skipped` per missed type with `data.from` (when the last key
 *   stopped being active) and `data.to` (when the next active key was created).
 * - `error`: the insert runs in a function whose EXCEPTION block undoes it when it fails
 *   (migration 0105: a savepoint without the two round trips of SAVEPOINT and RELEASE); the
 *   caller's change still commits, and an `events.skipped` with reason `error` is recorded instead.
 */
import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import { prepared } from '../db/prepared-statements.js';
import type { Transaction } from '../db/transaction.js';
import { EVENT_SCOPES, type EventType, type SkippedData } from './catalogue.js';
import { fanOut, fanOutOutcome, recordEventCall, type FanOutEvent, type FanOutOutcome } from './fan-out.js';
import type { ActorLogger } from '../core/actor.js';
import { keyActive } from '../db/active-key.js';
// Types only: the modules declare their events' data (src/modules/<noun>/events.ts) and import the outbox, not the other way round.
import type { EventData } from '../event-schemas.js';
import { assertEventData, STRICT_EVENTS } from './validate.js';

/** Channel notified when events commit, so delivery workers wake at once. */
export const EVENTS_CHANNEL = 'dcm_events';

/**
 * An event to record: `data` has the shape of its type (declared by its module's events.ts,
 * assembled in src/event-schemas.ts), so a `data` of the wrong shape for its type does not compile.
 */
export type NewEvent = {
  [T in EventType]: {
    clinicId: string;
    type: T;
    facilityId: string | null;
    data: EventData<T>;
    /** The acting request's logger (its lines carry the request id); jobs and the worker pass none. */
    log?: ActorLogger;
  };
}[EventType];

export interface RecordedEvent {
  /** The event's id; '' when no event could be created (`skipped` says why). */
  id: string;
  type: string;
  /** Set when the event itself was not created (spec 6.4). */
  skipped?: 'no_active_key' | 'error';
}

/**
 * A recording failure is logged (the change still commits; see `error` above): on the acting
 * request's logger, so the line carries its request id; on stderr when no request acts.
 */
function onRecordError(error: unknown, type: string, log: ActorLogger | undefined): void {
  const message = `recordEvent: the ${type} event could not be stored; events.skipped reason error recorded instead`;
  if (log) log.error({ err: error, eventType: type }, message);
  else console.error(`${message}: ${(error as Error)?.message ?? error}`);
}

export async function recordEvent(trx: Transaction, event: NewEvent): Promise<RecordedEvent> {
  if (!trx.isTransaction) return trx.transaction().execute((t) => recordEvent(t, event));
  const pending = recordEventIn(trx, event);
  const { rows } = await prepared(sql<{ outcome: string }>`SELECT ${pending.call} AS outcome`).execute(trx);
  return pending.settle(trx, rows[0]!.outcome);
}

/** An event recorded by a statement of the caller's (recordEventIn). */
interface EventInStatement {
  /** The `record_event(…)` call for that statement's select list, run once, when the change is written; its value is the outcome. */
  call: RawBuilder<string>;
  /** Completes the recording with the call's outcome, as recordEvent does: a clinic without an active key or with gaps to record, and a failed insert. */
  settle(trx: Transaction, outcome: string): Promise<RecordedEvent>;
}

/**
 * recordEvent in two halves, so that a creation's own statement records its event (one round
 * trip fewer on POST /patients and POST /leads). The data must be what recordEvent
 * would be given after the write: a creation builds it from the values it inserts, and under the
 * tests the service compares it with the data of the row written (assertSameEventData).
 */
export function recordEventIn(trx: Transaction, event: NewEvent): EventInStatement {
  // Under the tests only: the data matches the documented schema of its type (src/events/validate.ts),
  // checked on entry so an event held back for want of an active key is checked too.
  if (STRICT_EVENTS) assertEventData(event.type, event.data);
  const { clinicId, type, facilityId, data, log } = event;
  const scope = EVENT_SCOPES[type];
  // Common case in one statement: inserted only when the clinic has an active key and no gap to record first.
  const first = fanOutEvent(trx, clinicId, type, scope, facilityId, data, { checkKeys: true });
  return {
    call: recordEventCall(first),
    async settle(trx, outcome) {
      const recorded = await insteadOfError(trx, clinicId, type, recordedOf(first, fanOutOutcome(outcome)), log);
      if (recorded.skipped || recorded.id !== '') return recorded;
      const state = await clinicKeyState(trx, clinicId);
      if (!state.active) {
        await rememberGap(trx, clinicId, type);
        return { id: '', type, skipped: 'no_active_key' };
      }
      if (state.gaps) await flushGaps(trx, clinicId);
      return insteadOfError(trx, clinicId, type, await tryInsertEvent(trx, fanOutEvent(trx, clinicId, type, scope, facilityId, data, {})), log);
    },
  };
}

/**
 * Under the tests only: the data a creation recorded before its insert (recordEventIn) is the
 * data of the row the insert wrote, as recordEvent would have been given after it. `written` is
 * computed only then: a request in production does not pay for it.
 */
export function assertSameEventData(type: string, recorded: unknown, written: () => unknown): void {
  if (!STRICT_EVENTS) return;
  const actual = written();
  if (JSON.stringify(recorded) !== JSON.stringify(actual))
    throw new Error(`${type}: the event's data ${JSON.stringify(recorded)} is not the written row's ${JSON.stringify(actual)}`);
}

/**
 * An insert that failed (undone by record_event, the caller's transaction still usable) is
 * logged and replaced by `events.skipped` reason `error`.
 */
async function insteadOfError(
  trx: Transaction,
  clinicId: string,
  type: EventType,
  recorded: RecordedEvent | { error: string },
  log?: ActorLogger,
): Promise<RecordedEvent> {
  if (!('error' in recorded)) return recorded;
  onRecordError(recorded.error, type, log);
  const scope = EVENT_SCOPES[type];
  const instead: SkippedData = { type, scope, reason: 'error' };
  const skipped = await insertEvent(trx, clinicId, 'events.skipped', scope, null, instead);
  return { id: skipped.id, type, skipped: 'error' };
}

async function clinicKeyState(trx: Transaction, clinicId: string): Promise<{ active: boolean; gaps: boolean }> {
  const { rows } = await sql<{ active: boolean; gaps: boolean }>`
    SELECT
      EXISTS (SELECT 1 FROM api_keys WHERE clinic_id = ${clinicId} AND ${keyActive()}) AS active,
      EXISTS (SELECT 1 FROM event_gaps WHERE clinic_id = ${clinicId}) AS gaps`.execute(trx);
  return rows[0]!;
}

/** The gap starts when the clinic's last key stopped being active (or when the clinic was created). */
async function rememberGap(trx: Transaction, clinicId: string, type: string): Promise<void> {
  await sql`
    INSERT INTO event_gaps (clinic_id, type, from_at)
    SELECT ${clinicId}, ${type}, coalesce(
      (SELECT max(least(coalesce(revoked_at, 'infinity'), coalesce(expires_at, 'infinity')))
         FROM api_keys WHERE clinic_id = ${clinicId}),
      (SELECT created_at FROM clinics WHERE id = ${clinicId}))
    ON CONFLICT (clinic_id, type) DO NOTHING`.execute(trx);
}

/** One `events.skipped` reason `no_active_key` per missed type; the gap ends when an active key was created. */
export async function flushGaps(trx: Transaction, clinicId: string): Promise<number> {
  const { rows } = await sql<{ type: string; from_at: Date; to_at: Date }>`
    DELETE FROM event_gaps g WHERE g.clinic_id = ${clinicId}
    RETURNING g.type, g.from_at, coalesce(
      (SELECT min(k.created_at) FROM api_keys k WHERE k.clinic_id = ${clinicId} AND ${keyActive('k')}
         AND k.created_at >= g.from_at),
      now()) AS to_at`.execute(trx);
  for (const row of rows.sort((a, b) => a.type.localeCompare(b.type))) {
    const type = row.type as EventType;
    const scope = EVENT_SCOPES[type];
    const data: SkippedData = {
      type,
      scope,
      reason: 'no_active_key',
      from: new Date(row.from_at).toISOString(),
      to: new Date(row.to_at).toISOString(),
    };
    await insertEvent(trx, clinicId, 'events.skipped', scope, null, data);
  }
  return rows.length;
}

/**
 * Low-level insert shared by recordEvent and the `events.skipped` records (spec 6.4),
 * whose scope is the scope of the type they stand for. One statement inserts the event,
 * fans it out and, when a live delivery was created, notifies the workers (at commit).
 * A failure throws (the caller's transaction then rolls back), as any failed statement does.
 */
export async function insertEvent(
  trx: Transaction,
  clinicId: string,
  type: string,
  scope: string,
  facilityId: string | null,
  data: Record<string, unknown>,
  options: { checkKeys?: boolean } = {},
): Promise<RecordedEvent> {
  // The events.skipped records (recordEvent checks its own events on entry).
  if (STRICT_EVENTS) assertEventData(type, data);
  const recorded = await tryInsertEvent(trx, fanOutEvent(trx, clinicId, type, scope, facilityId, data, options));
  if ('error' in recorded) throw new Error(`recordEvent: the ${type} event could not be stored: ${recorded.error}`);
  return recorded;
}

/** The insert of `event`, answering `{ error }` instead of throwing when it failed (and was undone). */
async function tryInsertEvent(trx: Transaction, event: FanOutEvent): Promise<RecordedEvent | { error: string }> {
  return recordedOf(event, await fanOut(trx, event));
}

/** A new event, as fan-out.ts inserts it. */
/**
 * The last `createdAt` given to an event of each transaction. Events are listed by `createdAt`,
 * then by id (random): two events of one transaction in the same millisecond (a gap's
 * `events.skipped` and the event that records it) were listed in either order. Each event of a
 * transaction gets a time after the one before, so they list in the order recorded; a
 * transaction records a few events, so its times run ahead of the clock by as many milliseconds
 * at most.
 */
const lastEventTime = new WeakMap<Transaction, number>();

function eventTime(trx: Transaction): Date {
  const last = lastEventTime.get(trx);
  const time = last === undefined ? Date.now() : Math.max(Date.now(), last + 1);
  lastEventTime.set(trx, time);
  return new Date(time);
}

function fanOutEvent(
  trx: Transaction,
  clinicId: string,
  type: string,
  scope: string,
  facilityId: string | null,
  data: Record<string, unknown>,
  options: { checkKeys?: boolean },
): FanOutEvent {
  return {
    id: randomUUID(),
    clinicId,
    type,
    scope,
    facilityId,
    createdAt: eventTime(trx),
    dataText: JSON.stringify(data),
    subscriptionType: type === 'events.skipped' ? String(data.type) : type,
    notifyChannel: EVENTS_CHANNEL,
    checkKeys: options.checkKeys ?? false,
  };
}

/** What the insert of `event` came to: recorded, held (id ''), or failed and undone (`{ error }`). */
function recordedOf(event: FanOutEvent, outcome: FanOutOutcome): RecordedEvent | { error: string } {
  if (typeof outcome === 'object') return outcome;
  if (outcome === 'no_clinic') throw new Error(`recordEvent: unknown clinic ${event.clinicId}`);
  // Not inserted because of the key check: the caller looks at the clinic's keys and gaps.
  if (outcome === 'held') return { id: '', type: event.type };
  return { id: event.id, type: event.type };
}
