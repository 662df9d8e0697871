/** Back office: the clinic's confirmation rules, and clearing a patient's refusal of automatic asking. */
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import {
  ConfirmationRulesSchema,
  clearConfirmationOptOut,
  getConfirmationRules,
  rulesBodyIssues,
  setConfirmationRules,
} from '../../../modules/confirmations/index.js';
import { ClinicParams, Nullable } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Agenda (back office)';

export function registerConfirmationAdminRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/admin/v1/clinics/:clinicId/confirmation-rules',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminGetConfirmationRules',
        tags: [TAG],
        summary: 'Read the confirmation rules',
        description: 'The rules of the confirmation worklist, or `null` while the clinic has set none (then no appointment is asked about).',
        params: ClinicParams,
        response: { 200: Nullable(ConfirmationRulesSchema) },
      },
    },
    async (request) => getConfirmationRules(ctx.db, request.actor.clinicId),
  );

  app.put(
    '/admin/v1/clinics/:clinicId/confirmation-rules',
    {
      schema: {
        operationId: 'adminSetConfirmationRules',
        tags: [TAG],
        summary: 'Set the confirmation rules',
        description:
          'When to ask patients whether they are coming (`steps`: `{hoursBefore}` or `{daysBefore, at}` in the clinic’s time zone, e.g. 48 h and again 24 h before, or 18:00 the evening before; `appointment.confirmation_due` is recorded at each), which appointments (`calendarIds`, `categories`; empty: all), the channels to ask by, the attempts per appointment at most, the delay before asking again after no answer, and the quiet hours (clinic time zone). The worklist follows at once.',
        params: ClinicParams,
        body: ConfirmationRulesSchema,
        response: { 200: ConfirmationRulesSchema },
      },
      config: { clinicActor: true, bodyIssues: rulesBodyIssues },
    },
    async (request) => setConfirmationRules(ctx.db, request.actor.clinicId, request.body),
  );

  app.delete(
    '/admin/v1/clinics/:clinicId/confirmations/:patientId/opt-out',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminClearConfirmationOptOut',
        tags: [TAG],
        summary: 'Allow automatic confirmation requests again',
        description:
          'A person of the clinic says the patient may be asked again: clears an `opted_out` answer and a wrong-phone flag of the confirmation loop. STOP written in chat is not changed here.',
        params: Type.Object({ clinicId: Type.String({ format: 'uuid' }), patientId: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
        response: { 204: Type.Null({ description: 'Cleared' }) },
      },
    },
    async (request, reply) => {
      await clearConfirmationOptOut(ctx.db, request.actor, request.params.patientId);
      return reply.status(204).send(null);
    },
  );
}
