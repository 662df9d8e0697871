/** Back office: the clinic's outbound settings: how long a waitlist offer keeps its slot, the recall rules, opt-outs. */
import type { AppContext } from '../../../context.js';
import { WaitlistSettingsSchema, getWaitlistSettings, setWaitlistSettings } from '../../../modules/waitlist/index.js';
import { RecallRulesSchema, clearRecallOptOut, getRecallRules, setRecallRules, rulesBodyIssues } from '../../../modules/recalls/index.js';
import { ClinicParams, Nullable } from '../../../core/schemas.js';
import { Type } from 'typebox';
import type { App } from '../../types.js';

const TAG = 'Agenda (back office)';

export function registerOutboundAdminRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/admin/v1/clinics/:clinicId/waitlist-settings',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminGetWaitlistSettings',
        tags: [TAG],
        summary: 'Read the waitlist settings',
        description: 'How long an offer of a freed slot keeps it for one waitlist entry (default 30 minutes).',
        params: ClinicParams,
        response: { 200: WaitlistSettingsSchema },
      },
    },
    async (request) => {
      return getWaitlistSettings(ctx.db, request.actor.clinicId);
    },
  );

  app.put(
    '/admin/v1/clinics/:clinicId/waitlist-settings',
    {
      schema: {
        operationId: 'adminSetWaitlistSettings',
        tags: [TAG],
        summary: 'Set the waitlist settings',
        description: 'Offers made from now on keep their slot `offerMinutes` (5-1440); live offers keep the expiry they were given.',
        params: ClinicParams,
        body: WaitlistSettingsSchema,
        response: { 200: WaitlistSettingsSchema },
      },
      config: { clinicActor: true, bodyIssues: false },
    },
    async (request) => {
      return setWaitlistSettings(ctx.db, request.actor.clinicId, request.body);
    },
  );

  app.get(
    '/admin/v1/clinics/:clinicId/recall-rules',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminGetRecallRules',
        tags: [TAG],
        summary: 'Read the recall rules',
        description: 'The rules of the recall worklist, or `null` while the clinic has set none (then nobody is due).',
        params: ClinicParams,
        response: { 200: Nullable(RecallRulesSchema) },
      },
    },
    async (request) => {
      return getRecallRules(ctx.db, request.actor.clinicId);
    },
  );

  app.put(
    '/admin/v1/clinics/:clinicId/recall-rules',
    {
      schema: {
        operationId: 'adminSetRecallRules',
        tags: [TAG],
        summary: 'Set the recall rules',
        description:
          'Which completed visits count (appointment `categories` and/or `types`: at least one), the interval in months, the attempts per 7 days at most, and the quiet hours (clinic time zone). The worklist is recomputed at once.',
        params: ClinicParams,
        body: RecallRulesSchema,
        response: { 200: RecallRulesSchema },
      },
      config: { clinicActor: true, bodyIssues: rulesBodyIssues },
    },
    async (request) => {
      return setRecallRules(ctx.db, request.actor.clinicId, request.body);
    },
  );

  app.delete(
    '/admin/v1/clinics/:clinicId/recalls/:patientId/opt-out',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminClearRecallOptOut',
        tags: [TAG],
        summary: 'Allow automatic recall contact again',
        description:
          'A person of the clinic says the patient may be called again: clears an `opted_out` outcome and a wrong-phone flag. STOP written in chat is not changed here.',
        params: Type.Object({ clinicId: Type.String({ format: 'uuid' }), patientId: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
        response: { 204: Type.Null({ description: 'Cleared' }) },
      },
    },
    async (request, reply) => {
      await clearRecallOptOut(ctx.db, request.actor, request.params.patientId);
      return reply.status(204).send(null);
    },
  );
}
