/** /v1/leads (spec 2.5, 4.4). */
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import { createLead, getLead, LEAD_SOURCES, LEAD_STATUSES } from '../../../modules/leads/service.js';
import { setEtag } from '../../etag.js';
import { Email, IdempotencyKeyHeader, IdParams, InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid } from '../../../core/schemas.js';
import type { App } from '../../types.js';
import { PHONE_PATTERN } from './patients.js';

const TAG = 'Sales contacts';

export const LeadInputSchema = Type.Object(
  {
    firstName: Type.String({ minLength: 1, maxLength: 100 }),
    lastName: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    email: Type.Optional(Nullable(Email(254))),
    phone: Type.Optional(
      Nullable(Type.String({ minLength: 3, maxLength: 40, pattern: PHONE_PATTERN, description: 'Any format; stored and returned in E.164' })),
    ),
    source: Type.Optional(Nullable(StringEnum(LEAD_SOURCES))),
    sourceDetail: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    status: Type.Optional(StringEnum(LEAD_STATUSES, { description: 'Default `new`' })),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    assignedTo: Type.Optional(Nullable(Uuid({ description: 'A staff profile of the clinic' }))),
    estimatedValue: Type.Optional(
      Nullable(Type.Number({ minimum: 0, maximum: 100000000, description: '0 to 100000000 inclusive, in euro (our choice of unit)' })),
    ),
    nextFollowUpAt: Type.Optional(Nullable(InputTimestamp())),
    facilityId: Type.Optional(Nullable(Uuid({ description: 'Required when the key is limited to facilities; must be one the key sees' }))),
  },
  { additionalProperties: false, title: 'LeadInput' },
);

export const ActivitySchema = Type.Object(
  {
    id: Uuid(),
    kind: Type.String({ description: '`call`, `note`, `email`, `message`, `meeting` or `status_change`' }),
    body: Type.String(),
    at: OutputTimestamp(),
  },
  { additionalProperties: false },
);

const leadFields = {
  id: Uuid(),
  facilityId: Nullable(Uuid()),
  firstName: Type.String(),
  lastName: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String({ description: 'E.164' })),
  source: Nullable(StringEnum(LEAD_SOURCES)),
  sourceDetail: Nullable(Type.String()),
  status: StringEnum(LEAD_STATUSES),
  assignedTo: Nullable(Uuid()),
  estimatedValue: Nullable(Type.Number()),
  notes: Nullable(Type.String()),
  nextFollowUpAt: Nullable(OutputTimestamp()),
  lastContactedAt: Nullable(OutputTimestamp()),
  lostReason: Nullable(Type.String()),
  convertedPatientId: Nullable(Uuid()),
  convertedAt: Nullable(OutputTimestamp()),
  createdAt: OutputTimestamp(),
  updatedAt: OutputTimestamp(),
  deduplicated: Type.Boolean({ description: 'true = it already existed: nothing created, nothing modified' }),
};

export const LeadSchema = Type.Object(leadFields, { additionalProperties: false, title: 'Lead' });
export const LeadDetailSchema = Type.Object(
  { ...leadFields, activities: Type.Array(ActivitySchema, { description: 'Oldest first' }) },
  { additionalProperties: false, title: 'LeadDetail' },
);

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
        headers: Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader) }),
        body: LeadInputSchema,
        response: { 201: LeadSchema, 200: LeadSchema },
      },
      config: { scopes: ['leads:write'], idempotent: true },
    },
    async (request, reply) => {
      const { view, created, version } = await createLead(ctx.db, { scope: request.auth, region: ctx.config.defaultPhoneRegion }, request.body);
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
      config: { scopes: ['leads:read'] },
    },
    async (request, reply) => {
      const { view, version } = await getLead(ctx.db, request.auth, request.params.id);
      setEtag(reply, version);
      return view as typeof view & { activities: NonNullable<typeof view.activities> };
    },
  );
}
