/**
 * The `data` of every event type (spec 6.2-6.4), assembled above the modules: each module
 * declares the events it records in its `events.ts` (`src/modules/<noun>/events.ts`), the outbox
 * its own `events.skipped` (src/events/catalogue.ts). They describe exactly what the services
 * put in `data`, and serve four readers:
 * - the outbox's types: `NewEvent` (src/events/record.ts) is typed by `EventData` (a type-only
 *   import), so a `data` of the wrong shape for its type does not compile;
 * - the outbox's check under the tests (DCM_STRICT_EVENTS=1): createContext hands these schemas to
 *   src/events/validate.ts, so every event the suite records proves its documented shape;
 * - the OpenAPI `webhooks` section (src/http/plugins/openapi-webhooks.ts), one entry per type;
 * - `dental-clinic trigger <type>` (src/http/routes/admin/events.ts), which records the type's
 *   example with fresh ids.
 *
 * `data` never holds health data: no names, notes, titles, reasons or message text; linked
 * resources appear as ids only.
 */
import { randomUUID } from 'node:crypto';
import type { Static, TSchema } from 'typebox';
import { EventsSkipped, type AnyEventType } from './events/catalogue.js';
import { isUuid } from './lib/formats.js';
import { APPOINTMENT_EVENTS } from './modules/appointments/events.js';
import { BILLING_EVENTS } from './modules/billing/events.js';
import { CALL_EVENTS } from './modules/calls/events.js';
import { CONFIRMATION_EVENTS } from './modules/confirmations/events.js';
import { CONVERSATION_EVENTS } from './modules/conversations/events.js';
import { LEAD_EVENTS } from './modules/leads/events.js';
import { PATIENT_EVENTS } from './modules/patients/events.js';
import { TASK_EVENTS } from './modules/tasks/events.js';
import { WAITLIST_EVENTS } from './modules/waitlist/events.js';
import { WEBHOOK_EVENTS } from './modules/webhooks/events.js';

/** The schema of `data` for every type an event can have, in the order of the catalogue (the order of the `webhooks` section). */
export const EVENT_DATA_SCHEMAS = {
  ...PATIENT_EVENTS,
  ...APPOINTMENT_EVENTS,
  ...CONFIRMATION_EVENTS,
  ...BILLING_EVENTS,
  ...LEAD_EVENTS,
  ...TASK_EVENTS,
  ...CONVERSATION_EVENTS,
  ...CALL_EVENTS,
  ...WAITLIST_EVENTS,
  'events.skipped': EventsSkipped,
  ...WEBHOOK_EVENTS,
} satisfies Record<AnyEventType, TSchema>;

export const ALL_EVENT_TYPES = Object.keys(EVENT_DATA_SCHEMAS) as AnyEventType[];

/** The `data` of an event of type T. */
export type EventData<T extends AnyEventType> = Static<(typeof EVENT_DATA_SCHEMAS)[T]>;

/** The documented example of `data` for a type (a deep copy: callers may change it). */
export function exampleData<T extends AnyEventType>(type: T): EventData<T> {
  const schema = EVENT_DATA_SCHEMAS[type] as unknown as { examples: unknown[] };
  return structuredClone(schema.examples[0]) as EventData<T>;
}

/**
 * The type's example with fresh ids (one fresh id per id of the example, so links between its
 * fields stay consistent) and `facilityId` the event's: a sample of the type's real shape.
 */
export function sampleData<T extends AnyEventType>(type: T, facilityId: string | null): EventData<T> {
  const fresh = new Map<string, string>();
  const renew = (value: unknown): unknown => {
    if (typeof value === 'string' && isUuid(value)) {
      if (!fresh.has(value)) fresh.set(value, randomUUID());
      return fresh.get(value);
    }
    if (Array.isArray(value)) return value.map(renew);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renew(v)]));
    return value;
  };
  const data = renew(exampleData(type)) as Record<string, unknown>;
  if ('facilityId' in data) data.facilityId = facilityId;
  return data as EventData<T>;
}
