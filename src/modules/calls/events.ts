/** The `data` of `call.logged` (spec 6.2, 6.3): without the numbers, summary, recording or transcript. */
import { Type, type TSchema } from 'typebox';
import { EventDataObject, EXAMPLE_IDS as ID } from '../../core/event-data.js';
import type { AnyEventType } from '../../events/catalogue.js';
import { CallSchema } from './schema.js';

const CallLogged = EventDataObject(
  {
    ...Type.Pick(CallSchema, ['id', 'externalCallId', 'direction', 'startedAt', 'durationSeconds', 'outcome', 'patientId', 'leadId']).properties,
    leadCreated: Type.Boolean({ description: 'true = the number was unknown and this call created the lead `leadId`' }),
    facilityId: CallSchema.properties.facilityId,
    createdAt: CallSchema.properties.createdAt,
  },
  'CallEventData',
  'The call’s ids, outcome and duration (no numbers, summary or transcript)',
  {
    id: ID.call,
    externalCallId: 'CA5f1e0c7d2b9a4e6f8d3c1b0a9e8d7c6b',
    direction: 'inbound',
    startedAt: '2026-03-02T09:12:04.000Z',
    durationSeconds: 184,
    outcome: 'booked',
    patientId: ID.patient,
    leadId: null,
    leadCreated: false,
    facilityId: ID.facility,
    createdAt: '2026-03-02T09:15:10.000Z',
  },
);

/** The schema of `data` for each call event type. */
export const CALL_EVENTS = {
  'call.logged': CallLogged,
} satisfies { [T in AnyEventType]?: TSchema };
