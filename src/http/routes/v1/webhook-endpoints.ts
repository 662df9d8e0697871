/** /v1/webhook-endpoints (spec 2.12, 3.3, 4.10, 6). */
import { Type } from 'typebox';
import {
  WEBHOOK_REASONS,
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  MAX_ENDPOINTS_PER_CLINIC,
  rotateSecret,
  updateEndpoint,
  sendTestEvent,
  REPLAY_LIMIT,
  replayEvents,
  TestOutcomeSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecret,
  NewWebhookEndpointSchema,
  ReplayRequestSchema,
  ReplayResultSchema,
  RotateSecretSchema,
  WebhookEndpointChangesSchema,
  WebhookEndpointListSchema,
  endpointBodyIssues,
  replayBodyIssues,
} from '../../../modules/webhooks/index.js';
import type { AppContext } from '../../../context.js';
import { expectedVersion, setEtag } from '../../etag.js';
import { IdempotencyHeaders, IdParams, IfMatchHeaders } from '../../../core/schemas.js';
import type { App } from '../../types.js';

/** Test sends per destination per minute: enough to debug a receiver, too few to scan a network. */
const TESTS_PER_DESTINATION_PER_MINUTE = 5;

export function registerWebhookEndpointRoutes(app: App, ctx: AppContext): void {
  const policy = { allowInsecure: ctx.config.webhookAllowInsecure };
  const endpointIssues = endpointBodyIssues(policy);

  app.post(
    '/v1/webhook-endpoints',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        tags: ['Webhooks and events'],
        summary: 'Create a webhook destination',
        description:
          'Creates a destination that receives the chosen events, signed with a new secret (`whsec_…`) returned only in this response. ' +
          'Needs `webhooks:write` plus the scope of every chosen event (listed with each event type in `webhooks` of this document); `403 insufficient_scope` lists exactly the missing ones. ' +
          '`signatureScheme` (default `service`: `X-Service-Signature`) may be `standard` for Standard Webhooks headers that its libraries verify. ' +
          'The destination receives what the creating key can see (its scopes, with `webhooks:read`, and its facilities) and stops receiving when that key is revoked or expires. ' +
          `At most ${MAX_ENDPOINTS_PER_CLINIC} destinations per clinic: one more is \`409 conflict\` reason \`endpoint_limit\`. ` +
          'With `Idempotency-Key`, a replay answers `409 conflict` reason `response_not_stored` (the secret is shown once and never stored in a response).\n\n' +
          'Scopes: `webhooks:write` and the scope of each chosen event.',
        headers: IdempotencyHeaders,
        body: NewWebhookEndpointSchema,
        response: { 201: WebhookEndpointWithSecret },
      },
      // The service checks `webhooks:write` together with every chosen event's scope, so that
      // one 403 lists all the missing ones.
      config: {
        etag: true,
        location: true,
        reasons: WEBHOOK_REASONS.createEndpoint,
        scopes: [],
        idempotent: 'secret',
        errorStatuses: [409],
        bodyIssues: endpointIssues,
      },
    },
    async (request, reply) => {
      const created = await createEndpoint(request.db, request.actor, policy, request.body);
      setEtag(reply, 1);
      reply.header('location', `/v1/webhook-endpoints/${created.id}`);
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/v1/webhook-endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags: ['Webhooks and events'],
        summary: 'List webhook destinations',
        description:
          'Every destination of the clinic (at most 20, so one page: `nextCursor` is always null), oldest first. Secrets are never shown. ' +
          'A key limited to facilities sees only the destinations created by keys limited to some of its own facilities. Deleted destinations are not listed.',
        response: { 200: WebhookEndpointListSchema },
      },
      config: { scopes: ['webhooks:read'] },
    },
    async (request) => ({ data: await listEndpoints(ctx.db, request.actor), nextCursor: null }),
  );

  app.get(
    '/v1/webhook-endpoints/:id',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        tags: ['Webhooks and events'],
        summary: 'Read a webhook destination',
        description: 'One destination, without its secret, with an `ETag` for `If-Match`. Deleted, of another clinic, or not visible to the key: `404`.',
        params: IdParams,
        response: { 200: WebhookEndpointSchema },
      },
      config: { etag: true, scopes: ['webhooks:read'] },
    },
    async (request, reply) => {
      const { view, version } = await getEndpoint(ctx.db, request.actor, request.params.id);
      setEtag(reply, version);
      return view;
    },
  );

  app.patch(
    '/v1/webhook-endpoints/:id',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags: ['Webhooks and events'],
        summary: 'Change or switch a webhook destination on or off',
        description:
          '`enabled: true` switches a destination back on (also one switched off with `too_many_failures`; its count of discarded deliveries restarts at 0); `enabled: false` switches it off (`disabledReason` null). ' +
          'Changing `url`, `events` or `description` needs the same scopes as creation (`webhooks:write` and the scope of every event the destination will receive). ' +
          '`signatureScheme` switches how the next attempts are signed (`standard` needs a secret made or rotated since secrets are standard base64: else `409 conflict` reason `secret_rotation_required`). ' +
          'Only sent fields change; at least one is needed. Optional `If-Match`: `409 conflict` reason `version_mismatch` when the destination changed meanwhile.',
        params: IdParams,
        headers: IfMatchHeaders,
        body: WebhookEndpointChangesSchema,
        response: { 200: WebhookEndpointSchema },
      },
      config: { etag: true, reasons: WEBHOOK_REASONS.updateEndpoint, scopes: ['webhooks:write'], errorStatuses: [409], bodyIssues: endpointIssues },
    },
    async (request, reply) => {
      const { view, version } = await updateEndpoint(ctx.db, request.actor, policy, request.params.id, request.body, expectedVersion(request));
      setEtag(reply, version);
      return view;
    },
  );

  app.delete(
    '/v1/webhook-endpoints/:id',
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags: ['Webhooks and events'],
        summary: 'Delete a webhook destination',
        description:
          'The destination stops receiving at once; its pending deliveries are discarded without being sent (`skippedReason: endpoint_deleted`). ' +
          'Its deliveries stay readable with `GET /webhook-deliveries` for 30 days. Answers `204` with no body.',
        params: IdParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
      config: { scopes: ['webhooks:write'] },
    },
    async (request, reply) => {
      await deleteEndpoint(ctx.db, request.actor, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/v1/webhook-endpoints/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookEndpointSecret',
        tags: ['Webhooks and events'],
        summary: 'Rotate the signing secret',
        description:
          'Creates a new secret, returned only in this response. The old one keeps signing for `overlapMinutes` (0-10080, default 1440; 0 = it stops at once): ' +
          'meanwhile every webhook carries two signatures, `v1=<new>,v1=<old>` (Standard Webhooks: `v1,<new> v1,<old>`). `previousSecretExpiresAt` says when the overlap ends. A rotation during an overlap ends the older overlap: only the last two secrets sign. ' +
          'Send `{}` for the default overlap. With `Idempotency-Key`, a replay answers `409 conflict` reason `response_not_stored`.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: RotateSecretSchema,
        response: { 200: WebhookEndpointWithSecret },
      },
      config: { scopes: ['webhooks:write'], idempotent: 'secret', bodyIssues: false },
    },
    async (request) => rotateSecret(request.db, request.actor, request.params.id, request.body.overlapMinutes ?? 1440),
  );

  app.post(
    '/v1/webhook-endpoints/:id/test',
    {
      schema: {
        operationId: 'testWebhookEndpoint',
        tags: ['Webhooks and events'],
        summary: 'Send a test webhook now',
        description:
          'Sends at once one signed `webhook.test` envelope with empty `data` to the destination (also a disabled one) and answers with the outcome: `success`, `statusCode`, `durationMs`, or the kind of network `error`. ' +
          'No retries, and nothing is stored: it is not a delivery. Each test has a fresh `id` (its idempotency key). ' +
          'With a test-kind key nothing is sent: `skipped: "test_mode"`. The request body is optional (`{}`); it has no fields. ' +
          `At most ${TESTS_PER_DESTINATION_PER_MINUTE} tests per destination per minute (the outcome names the network error, so the limit keeps it from probing hosts in a loop): ` +
          "one more is `429 rate_limited` with `Retry-After`, and consumes none of the key's or the clinic's budget.",
        params: IdParams,
        response: { 200: TestOutcomeSchema },
      },
      config: {
        scopes: ['webhooks:write'],
        extraWindows: (request) => [
          {
            name: `webhook-test:${request.actor.clinicId}:${String((request.params as { id: string }).id).toLowerCase()}`,
            limit: TESTS_PER_DESTINATION_PER_MINUTE,
            seconds: 60,
          },
        ],
      },
    },
    async (request) => {
      const { row } = await getEndpoint(ctx.db, request.actor, request.params.id);
      return sendTestEvent(row, request.actor, ctx.config);
    },
  );

  app.post(
    '/v1/webhook-endpoints/:id/replay',
    {
      schema: {
        operationId: 'replayWebhookEndpoint',
        tags: ['Webhooks and events'],
        summary: 'Send a time range of events again',
        description:
          'Recovery after a receiver was down: queues one new delivery (new delivery id, usual retries) for every event of `[from, to)` the destination would receive now ' +
          '(its event types, and what its creating key sees), and answers `202` with the count. `from` must be within the last 30 days (the events kept) and before `to`, else `400`. ' +
          `At most ${REPLAY_LIMIT} events per call: more is \`409 conflict\` reason \`replay_too_large\` and nothing is queued; replay shorter ranges one after the other. ` +
          'Idempotent: an event whose delivery to this destination is still pending or being sent is not queued again (`alreadyPending`), so the same range twice adds nothing while the first deliveries wait; ' +
          'once they are finished, the same range sends them again (deduplicate on `eventId`). With `Idempotency-Key`, a retry gets the first answer. ' +
          'A switched-off destination is `409` reason `endpoint_disabled`; one whose creating key is no longer active, `key_inactive`. A test clinic’s replayed deliveries are recorded `test_mode` and nothing is sent.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: ReplayRequestSchema,
        response: { 202: ReplayResultSchema },
      },
      config: { reasons: WEBHOOK_REASONS.replay, scopes: ['webhooks:write'], idempotent: true, errorStatuses: [409], bodyIssues: replayBodyIssues },
    },
    async (request, reply) => reply.status(202).send(await replayEvents(request.db, request.actor, request.params.id, request.body)),
  );
}
