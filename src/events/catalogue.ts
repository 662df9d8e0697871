/**
 * The event catalogue of spec 6.3: each type and the scope a key needs to receive it; and the
 * `data` of `events.skipped` (spec 6.4), the outbox's own event, which names one of those types.
 * The `data` of the others is declared by the module that records them (src/modules/<noun>/events.ts).
 */
import { Type, type Static } from 'typebox';
import { OutputTimestamp, StringEnum } from '../core/schemas.js';

export const EVENT_SCOPES = {
  'patient.created': 'patients:read',
  'patient.updated': 'patients:read',
  'patient.archived': 'patients:read',
  'appointment.created': 'appointments:read',
  'appointment.rescheduled': 'appointments:read',
  'appointment.confirmed': 'appointments:read',
  'appointment.cancelled': 'appointments:read',
  'appointment.checked_in': 'appointments:read',
  'appointment.completed': 'appointments:read',
  'appointment.no_show': 'appointments:read',
  'appointment.confirmation_due': 'appointments:read',
  'treatment_plan.presented': 'treatment_plans:read',
  'treatment_plan.accepted': 'treatment_plans:read',
  'treatment_plan.rejected': 'treatment_plans:read',
  'invoice.issued': 'billing:read',
  'invoice.paid': 'billing:read',
  'payment.received': 'billing:read',
  'installment.overdue': 'billing:read',
  'lead.created': 'leads:read',
  'lead.converted': 'leads:read',
  'task.created': 'tasks:read',
  'task.completed': 'tasks:read',
  'conversation.message_received': 'messages:read',
  'conversation.handoff_requested': 'messages:read',
  'call.logged': 'calls:read',
  'waitlist.offer_created': 'appointments:read',
} as const;

export type EventType = keyof typeof EVENT_SCOPES;

/** Types a destination can subscribe to (webhook.test and events.skipped cannot be chosen). */
export const SUBSCRIBABLE_EVENT_TYPES = Object.keys(EVENT_SCOPES) as EventType[];

/** Every type an event can have: the catalogue's and the two a destination cannot choose. */
export type AnyEventType = EventType | 'events.skipped' | 'webhook.test';

const skippedBase = {
  type: StringEnum(SUBSCRIBABLE_EVENT_TYPES, { description: 'The type of the events that could not be created' }),
  scope: StringEnum([...new Set(Object.values(EVENT_SCOPES))], { description: 'The scope needed to see them' }),
};
export const EventsSkipped = Type.Union(
  [
    Type.Object(
      {
        ...skippedBase,
        reason: Type.Literal('bulk_import', { description: 'More than 50 creations of the same type together' }),
        count: Type.Integer({ minimum: 1, description: 'How many' }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        ...skippedBase,
        reason: Type.Literal('no_active_key', { description: 'The clinic had no active key between `from` and `to`' }),
        from: OutputTimestamp(),
        to: OutputTimestamp(),
      },
      { additionalProperties: false },
    ),
    Type.Object({ ...skippedBase, reason: Type.Literal('error', { description: 'An internal error prevented the event' }) }, { additionalProperties: false }),
  ],
  {
    title: 'EventsSkippedEventData',
    description: 'Events that could not be created: resynchronize with `updatedSince` on the list of `scope`',
    examples: [{ type: 'patient.created', scope: 'patients:read', reason: 'bulk_import', count: 120 }],
  },
);
/** The `data` of an `events.skipped`. */
export type SkippedData = Static<typeof EventsSkipped>;
