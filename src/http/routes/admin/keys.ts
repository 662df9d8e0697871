/** Back office: API keys and the access log. */
import { KEY_REASONS, ApiKeySchema, CreatedApiKeySchema, NewApiKeySchema, keyBodyIssues } from '../../../modules/auth/index.js';
import type { AppContext } from '../../../context.js';
import { AccessLogEntrySchema, AccessLogQuerySchema, listAccessLog } from '../../../modules/access-log/index.js';
import * as keys from '../../../modules/auth/index.js';
import { decodeKeyset, encodeKeyset, pageOf } from '../../../core/cursor.js';
import { ClinicParams, IdParams, Page, List } from '../../../core/schemas.js';
import type { App } from '../../types.js';

export function registerKeyRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  app.post(
    '/admin/v1/clinics/:clinicId/api-keys',
    {
      schema: {
        operationId: 'adminCreateApiKey',
        tags: ['API keys'],
        summary: 'Issue an API key',
        description:
          'The kind follows the clinic (live or test). `facilityIds` limits the key to those facilities (null: all). `agent` says what the key is for (a plain integration, a chat bot, a voice agent). The token is returned only here.',
        params: ClinicParams,
        body: NewApiKeySchema,
        response: { 201: CreatedApiKeySchema },
      },
      config: { bodyIssues: keyBodyIssues },
    },
    async (request, reply) => {
      const { expiresAt, ...rest } = request.body;
      const created = await keys.createApiKey(db, request.params.clinicId, { ...rest, expiresAt: expiresAt ? new Date(expiresAt) : null });
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/admin/v1/clinics/:clinicId/api-keys',
    {
      schema: {
        operationId: 'adminListApiKeys',
        tags: ['API keys'],
        summary: "List a clinic's API keys, oldest first",
        params: ClinicParams,
        response: { 200: List(ApiKeySchema) },
      },
    },
    async (request) => ({ data: await keys.listApiKeys(db, request.params.clinicId) }),
  );

  app.post(
    '/admin/v1/api-keys/:id/revoke',
    {
      schema: {
        operationId: 'adminRevokeApiKey',
        tags: ['API keys'],
        summary: 'Revoke an API key',
        description:
          'Takes effect within a second in every process: the key then gets `401 api_key_revoked`, and webhook destinations it created receive nothing more.',
        params: IdParams,
        response: { 200: ApiKeySchema },
      },
    },
    async (request) => {
      const key = await keys.revokeApiKey(db, request.params.id);
      ctx.authenticator.invalidate();
      return key;
    },
  );

  app.post(
    '/admin/v1/api-keys/:id/replace',
    {
      config: { reasons: KEY_REASONS.replace },
      schema: {
        operationId: 'adminReplaceApiKey',
        tags: ['API keys'],
        summary: 'Replace an API key',
        description: 'Issues a new key with the same settings and revokes the old one (`replacedBy`).',
        params: IdParams,
        response: { 201: CreatedApiKeySchema },
      },
    },
    async (request, reply) => {
      const key = await keys.replaceApiKey(db, request.params.id);
      ctx.authenticator.invalidate();
      return reply.status(201).send(key);
    },
  );

  app.get(
    '/admin/v1/clinics/:clinicId/access-log',
    {
      schema: {
        operationId: 'adminListAccessLog',
        tags: ['Access log'],
        summary: 'Read the access log, newest first',
        description: 'Every read of free text or clinical data through the API: key, resource type and ids, fields, time.',
        params: ClinicParams,
        querystring: AccessLogQuerySchema,
        response: { 200: Page(AccessLogEntrySchema) },
      },
    },
    async (request) => {
      const { clinicId } = request.params;
      const { resourceId, limit = 50, cursor } = request.query;
      const scope = `access-log:${clinicId}:${resourceId ?? ''}`;
      const before = cursor ? decodeKeyset(ctx.cursorSecret, scope, cursor) : null;
      const rows = await listAccessLog(db, clinicId, {
        resourceId,
        limit: limit + 1,
        before: before ? { at: before[0].toISOString(), id: before[1] } : undefined,
      });
      const { items, nextCursor } = pageOf(rows, limit, (last) => encodeKeyset(ctx.cursorSecret, scope, last.at, last.id));
      return { data: items, nextCursor };
    },
  );
}
