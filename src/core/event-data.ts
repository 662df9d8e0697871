/**
 * What the event payload schemas share (spec 6.2-6.4). Each module declares the `data` of the
 * events it records in its `events.ts`, with one example each; src/event-schemas.ts assembles
 * them for the outbox's checks, the OpenAPI `webhooks` section and `dental-clinic trigger`.
 */
import { Type, type TSchema } from 'typebox';

/**
 * Ids of the examples: one clinic's patient, facility, doctor… shared by every type, as a
 * receiver would see them (an appointment's `patientId` is the patient of `patient.created`).
 */
export const EXAMPLE_IDS = {
  patient: '2a4b6c8d-1e3f-4a5b-9c7d-8e9f0a1b2c3d',
  facility: '5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f',
  otherFacility: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
  doctor: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  otherDoctor: '4f5e6d7c-8b9a-4f0e-9d1c-2b3a4f5e6d7c',
  chair: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e',
  calendar: 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f',
  appointment: 'e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b',
  quote: '7c1e2f4a-3b5d-4e6f-8a9b-0c1d2e3f4a5b',
  invoice: '4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8',
  payment: '8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a',
  paymentPlan: 'a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6e',
  installment: 'd4c3b2a1-f0e9-4d8c-8b7a-6f5e4d3c2b1a',
  lead: '6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d',
  staff: 'f0e1d2c3-b4a5-4968-9786-a5b4c3d2e1f0',
  task: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
  conversation: '8a9b0c1d-2e3f-4a4b-8c5d-6e7f8a9b0c1d',
  message: '0c1d2e3f-4a5b-4c6d-9e7f-8a9b0c1d2e3f',
  call: '5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9',
} as const;

/** The `data` of one event type: closed (no field beyond those named), with its title, description and one example. */
export const EventDataObject = <P extends Record<string, TSchema>>(properties: P, title: string, description: string, example: unknown) =>
  Type.Object(properties, { additionalProperties: false, title, description, examples: [example] });
