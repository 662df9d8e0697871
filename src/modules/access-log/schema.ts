/**
 * The access log on the wire (back office, `GET /admin/v1/clinics/{clinicId}/access-log`): the
 * schemas the route validates and serializes with, and the service's entry type derived from
 * them by `Static<>`.
 */
import { Type, type Static } from 'typebox';
import { Nullable, OutputTimestamp, PageQueryFields, Uuid } from '../../core/schemas.js';

export const AccessLogEntrySchema = Type.Object(
  {
    id: Uuid(),
    apiKeyId: Nullable(Uuid()),
    requestId: Nullable(Type.String()),
    resourceType: Type.String(),
    resourceIds: Type.Array(Uuid()),
    fields: Type.Array(Type.String()),
    at: OutputTimestamp(),
  },
  { additionalProperties: false },
);
export type AccessLogEntry = Static<typeof AccessLogEntrySchema>;

export const AccessLogQuerySchema = Type.Object({ resourceId: Type.Optional(Uuid()), ...PageQueryFields }, { additionalProperties: false });
