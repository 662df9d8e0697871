/** /v1/calls (spec 2.6, 4.5). */
import type { AppContext } from '../../../context.js';
import { createCall, getCall, CallDetailSchema, CallInputSchema, CallSchema, callBodyIssues } from '../../../modules/calls/index.js';
import { IdempotencyHeaders, IdParams } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Phone calls';
export function registerCallRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/calls',
    {
      schema: {
        operationId: 'createCall',
        tags: [TAG],
        summary: 'Register a finished phone call',
        description: [
          'Idempotent on `externalCallId` within the clinic: `201` the first time, then `200` with the row already registered, unchanged (also for concurrent retries; the body of a retry is not compared; a registered call of a facility the key does not see is `404`). Events `call.logged`, and `lead.created` when a lead was made.',
          'Required: `externalCallId`, `direction`, `from`, `to` (our choice). `from` and `to` are phones in any format, stored in E.164, or `anonymous`.',
          'When neither `patientId` nor `leadId` is given, the counterpart number (`from` for inbound, `to` for outbound) is matched to a patient with that phone (an active one first), else to a lead with it; an unknown number becomes a lead with `source: phone` and the `caller` name (first name `Sconosciuto` when none is given). `anonymous` matches and creates nothing. When the call is linked to a lead, a `call` activity is added to it (its body is the `summary`, or the direction and outcome).',
          '`transcript` needs `clinical:write` (`403 insufficient_scope`, `requiredScopes: ["clinical:write"]`); it is never in this response. `patientId`, `leadId` and `facilityId` must be rows the key sees (else `400` naming the field); `facilityId` is required for a key limited to facilities.',
        ].join('\n\n'),
        headers: IdempotencyHeaders,
        body: CallInputSchema,
        response: { 201: CallSchema, 200: CallSchema },
      },
      config: { scopes: ['calls:write'], idempotent: true, bodyIssues: callBodyIssues },
    },
    async (request, reply) => {
      const { view, created } = await createCall(request.db, request.actor, request.body);
      return reply.status(created ? 201 : 200).send(view);
    },
  );

  app.get(
    '/v1/calls/:id',
    {
      schema: {
        operationId: 'getCall',
        tags: [TAG],
        summary: 'Read a phone call',
        description:
          'The call. `transcript` is present only for a key with `clinical:read`, and that read is written to the access log. A call of another clinic or of a facility the key does not see is `404`.',
        params: IdParams,
        response: { 200: CallDetailSchema },
      },
      config: { scopes: ['calls:read'] },
    },
    async (request) => getCall(ctx.db, ctx.accessLog, request.actor, request.params.id),
  );
}
