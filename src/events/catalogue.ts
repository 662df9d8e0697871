/** The event catalogue of spec 6.3: each type and the scope a key needs to receive it. */
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
