/** /v1/voice: the voice agent's own operations. Refused `ai_disabled` while the clinic's AI is off. */
import {
  contextQueryIssues,
  HandoffSchema,
  NewHandoffSchema,
  VoiceContextQuerySchema,
  VoiceContextSchema,
  handOff,
  voiceContext,
} from '../../../modules/voice/index.js';
import type { AppContext } from '../../../context.js';
import { IdempotencyHeaders } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Voice agent';
const AI_OFF =
  'While the clinic has switched AI processing off, this operation answers `403 forbidden` reason `ai_disabled` to every key (and every operation does to an agent key), from the first request after the switch, in every server process.';

export function registerVoiceRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/voice/context',
    {
      schema: {
        operationId: 'getVoiceContext',
        tags: [TAG],
        summary: 'Everything the agent needs when the phone rings',
        description: [
          'One answer for the start of a call. `from` is the caller’s number in any format (or `anonymous`), `to` the number called: it picks the facility whose phone it is (otherwise the main facility the key sees).',
          '`clinic`: its name and time zone, the facility, whether it is open now by the facility’s working schedule, when it closes and when it opens next. `caller`: `patient` when active patients have this number (up to 5, a family may share one: each with the first name only and its next 3 appointments as id, start and calendar name), else `lead` (an open lead with this number, first name only), else `unknown`. `transfer`: whether a person can take the call now (open, with a phone) and the number.',
          'As little personal data as the job needs: no last name, birth date, contact or clinical data. The read is access-logged (resource `patient` with the patients named, fields `firstName` and `nextAppointments`; resource `lead` likewise). A number that cannot be a phone is `400` naming `from` or `to`.',
          AI_OFF,
        ].join('\n\n'),
        querystring: VoiceContextQuerySchema,
        response: { 200: VoiceContextSchema },
      },
      config: { scopes: ['patients:read', 'appointments:read'], aiOperation: true, queryIssues: contextQueryIssues },
    },
    async (request) => {
      const context = await ctx.reads.run(request.actor, (db) => voiceContext(db, request.actor, request.query));
      const patientIds = context.caller.patients.map((p) => p.id);
      await ctx.accessLog.record(request.actor, {
        resourceType: 'patient',
        resourceIds: patientIds,
        fields: ['firstName', 'nextAppointments'],
        requestId: request.id,
      });
      if (context.caller.lead) {
        await ctx.accessLog.record(request.actor, { resourceType: 'lead', resourceIds: [context.caller.lead.id], fields: ['firstName'] });
      }
      return context;
    },
  );

  app.post(
    '/v1/voice/handoffs',
    {
      schema: {
        operationId: 'createVoiceHandoff',
        tags: [TAG],
        summary: 'Give the call to a person',
        description: [
          'The agent gives up: `reason` (emergency, patient_request, billing, clinical_question, not_understood, other), an optional `summary`, the caller’s `patientId` or `leadId` when known, and the provider’s `callId`.',
          'While the facility (given, else the patient’s or lead’s, else the main one the key sees) is open by its working schedule and has a phone, it answers `outcome: transfer` with `transferTo`, the number to put the caller through to. Otherwise it creates a callback task for the clinic (type `callback`, due at the next opening, its title holding the reason and the summary; event `task.created`) and answers `outcome: callback` with `taskId`.',
          'One handoff per call and key: `201` the first time; the same `callId` from the same key again answers the first handoff with `200` and creates nothing, whatever the body. Ids the key cannot see are `400` naming the field.',
          AI_OFF,
        ].join('\n\n'),
        headers: IdempotencyHeaders,
        body: NewHandoffSchema,
        response: { 200: HandoffSchema, 201: HandoffSchema },
      },
      config: { scopes: ['calls:write'], aiOperation: true, idempotent: true, bodyIssues: false },
    },
    async (request, reply) => {
      const { view, created } = await handOff(request.db, request.actor, request.body);
      return reply.status(created ? 201 : 200).send(view);
    },
  );
}
