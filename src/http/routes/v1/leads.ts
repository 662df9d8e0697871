/** /v1/leads (spec 2.5, 4.4). */
import type { AppContext } from '../../../context.js';
import { createLead, getLead, LeadDetailSchema, LeadInputSchema, LeadSchema, leadBodyIssues } from '../../../modules/leads/index.js';
import { setEtag } from '../../etag.js';
import { IdempotencyHeaders, IdParams } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Sales contacts';

export function registerLeadRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/leads',
    {
      schema: {
        operationId: 'createLead',
        tags: [TAG],
        summary: 'Create a sales lead',
        description: [
          '`201` with the new lead (event `lead.created`), or `200` with the existing lead and `deduplicated: true` when a lead the key sees has the same phone (compared in E.164, whatever the input format) or the same email (any case): nothing is created or modified then.',
          'Required: `firstName` only (our choice). `phone` in any format, stored in E.164; a string that is not a phone number is `400`. `assignedTo` must be a staff profile of the clinic. `estimatedValue` is in euro (our choice).',
          '`facilityId` is required for a key limited to facilities and must be a facility of the clinic the key sees (else `400` naming `facilityId`).',
          'Concurrent creations with the same phone or email wait for each other and end in one lead. With `Idempotency-Key` a retry replays the first response.',
        ].join('\n\n'),
        headers: IdempotencyHeaders,
        body: LeadInputSchema,
        response: { 201: LeadSchema, 200: LeadSchema },
      },
      config: { etag: true, scopes: ['leads:write'], idempotent: true, bodyIssues: leadBodyIssues },
    },
    async (request, reply) => {
      const { view, created, version } = await createLead(request.db, request.actor, request.body);
      setEtag(reply, version);
      return reply.status(created ? 201 : 200).send(view);
    },
  );

  app.get(
    '/v1/leads/:id',
    {
      schema: {
        operationId: 'getLead',
        tags: [TAG],
        summary: 'Read a lead with its activities',
        description:
          'The lead, its `ETag`, and its activities oldest first (`kind` is `call`, `note`, `email`, `message`, `meeting` or `status_change`). `deduplicated` is always false here. A lead of another clinic or of a facility the key does not see is `404`.',
        params: IdParams,
        response: { 200: LeadDetailSchema },
      },
      config: { etag: true, scopes: ['leads:read'] },
    },
    async (request, reply) => {
      const { view, version } = await getLead(ctx.db, request.actor, request.params.id);
      setEtag(reply, version);
      return view as typeof view & { activities: NonNullable<typeof view.activities> };
    },
  );
}
