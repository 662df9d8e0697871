/** /v1/documents: a patient's files. Rules in src/modules/documents/README.md. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import { IdempotencyHeaders, IdParams, Page } from '../../../core/schemas.js';
import {
  downloadHeaders,
  DOCUMENT_REASONS,
  ContentLinkSchema,
  DocumentListQuery,
  DocumentSchema,
  INLINE_MAX_BASE64,
  NewDocumentBody,
  ContentQuerySchema,
  archiveDocument,
  completeDocument,
  contentLink,
  createDocument,
  depsOf,
  documentView,
  getDocument,
  listDocuments,
  openContent,
  readableDocument,
  documentBodyIssues,
} from '../../../modules/documents/index.js';
import type { App } from '../../types.js';
import { linkOrigin } from '../../link-origin.js';

const TAG = 'Documents';
/** The creation's body holds up to 4 MiB as base64, plus the metadata: its own limit, the rest of the API keeps the small one. */
const CREATE_BODY_LIMIT = INLINE_MAX_BASE64 + 64 * 1024;

const SCOPE_RULE =
  'Clinical categories (`xray`, `photo`, `lab`, `referral`, `consent`) also need `clinical:read` to be read and `clinical:write` to be written (`403 insufficient_scope` with `requiredScopes`).';

const EXAMPLE = {
  id: '5b0f3a53-6c1e-4a55-9a7e-0d6f2e8b9c11',
  patientId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  facilityId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  category: 'consent',
  title: 'Consenso informato impianto',
  filename: 'consenso-impianto.pdf',
  contentType: 'application/pdf',
  sizeBytes: 482113,
  sha256: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  status: 'available',
  rejectedReason: null,
  scanResult: 'clean',
  appointmentId: null,
  quoteId: null,
  invoiceId: null,
  chatMessageId: '9a1f7c1e-2b7d-4c36-8d0e-5f3c1a2b4d6e',
  origin: 'chat_bot',
  createdAt: '2026-03-02T09:30:00.000Z',
  updatedAt: '2026-03-02T09:30:01.250Z',
  archivedAt: null,
  purgedAt: null,
};

const PENDING_EXAMPLE = {
  ...EXAMPLE,
  category: 'xray',
  title: 'Panoramica arcata superiore',
  filename: 'panoramica.dcm',
  contentType: 'application/dicom',
  sizeBytes: 18874368,
  status: 'pending_upload',
  scanResult: 'not_scanned',
  chatMessageId: null,
  origin: 'api',
  upload: {
    method: 'PUT',
    url: 'https://api.example.com/files/upload/eyJvcCI6InVwbG9hZCJ9.q2xH0cUj3m1n6yCk1X0R0A7WbNfQ9m8s3iS5nS2kUo4',
    headers: { 'content-type': 'application/dicom' },
    expiresAt: '2026-03-02T09:45:00.000Z',
  },
};

/** Where the service's own links point: PUBLIC_URL, or the address it listens on; never the request's Host. */
function linkBase(ctx: AppContext, request: FastifyRequest): string {
  return linkOrigin(ctx.config.documents.publicUrl, ctx.config.host, request.raw.socket);
}

export function registerDocumentRoutes(app: App, ctx: AppContext): void {
  const deps = depsOf(ctx);
  const logRead = (request: FastifyRequest, ids: string[], fields: string[]) =>
    ids.length === 0 ? Promise.resolve() : ctx.accessLog.record(request.actor, { resourceType: 'document', resourceIds: ids, fields });

  app.post(
    '/v1/documents',
    {
      bodyLimit: CREATE_BODY_LIMIT,
      schema: {
        operationId: 'createDocument',
        tags: [TAG],
        summary: 'Create a document (inline bytes, or an upload link)',
        description: [
          "Attaches a file to a patient's record. Send the metadata with the exact `sizeBytes` and the `sha256` (hex) of the bytes, and either:",
          '- **`contentBase64`** (up to 4 MiB of bytes, for chat media): one call, and the answer (`201`) is final: `available`, or `rejected` with `rejectedReason`, or `pending_scan` when a malware scanner is configured and did not answer (it is retried every minute);',
          '- **nothing**: the answer (`201`, `pending_upload`) carries `upload` (`method` PUT, `url`, `headers` to send, `expiresAt`, 15 minutes). PUT the raw bytes there once: the link is the service’s own (`uploadDocumentBytes`) with either storage (fs or S3; with S3 the service streams the bytes into the store), it checks the bytes itself and answers the outcome, so two calls suffice; `POST /v1/documents/{id}/complete` is optional. The link is single-use: a second PUT, or one after `expiresAt`, is `403` and changes nothing. An upload nobody completes is checked by a job when its link expires. Links (upload and download) point at the deployment’s PUBLIC_URL, or without it at the address the service listens on; never at the request’s `Host`.',
          'Checks before a document becomes `available`: the declared size (`size_mismatch`) and hash (`checksum_mismatch`) match the bytes; the real type, read from the bytes, is PDF, JPEG, PNG, HEIC, DICOM or plain UTF-8 text and agrees with `contentType` (`type_not_allowed`; plain text is checked over every byte: UTF-8, no control characters but tab, line feed, form feed and carriage return, and no markup, i.e. no HTML element tag such as `<p>` or `<img src=…`, doctype, comment, CDATA or XML declaration); the malware scanner finds nothing (`malware`). A refused document keeps its row, `rejected`, and its bytes are deleted.',
          `Bad input is \`400\` naming every wrong field: a \`contentType\` outside the allowed list, \`sizeBytes\` over DOCUMENT_MAX_BYTES (${Math.round(ctx.config.documents.maxBytes / 1_048_576)} MiB here), \`contentBase64\` that is not base64, a \`patientId\` the key does not see, an \`appointmentId\`, \`quoteId\` (treatment plan) or \`invoiceId\` of another patient, a \`chatMessageId\` without media or of another patient's conversation. Linking a chat message also sets that message's \`documentId\`.`,
          SCOPE_RULE,
          'With `Idempotency-Key` a retry replays the first response and creates nothing.',
        ].join('\n\n'),
        headers: IdempotencyHeaders,
        body: NewDocumentBody,
        response: { 201: { ...DocumentSchema, examples: [PENDING_EXAMPLE, EXAMPLE] } },
      },
      config: { scopes: ['documents:write'], idempotent: true, errorStatuses: [403], bodyIssues: documentBodyIssues(deps.config.maxBytes) },
    },
    async (request, reply) => {
      const view = await createDocument({ ...deps, db: request.db }, request.actor, { ...request.body, linkBase: linkBase(ctx, request) });
      return reply.status(201).send(view);
    },
  );

  app.post(
    '/v1/documents/:id/complete',
    {
      schema: {
        operationId: 'completeDocument',
        tags: [TAG],
        summary: 'Check the uploaded bytes of a document',
        description: [
          'After the PUT to `upload.url` (optional: that PUT already checked the bytes and answered the outcome): checks the bytes (as described under `createDocument`) if they were not checked yet, and answers the document, `available`, `rejected` with its reason, or `pending_scan`. Called again, or on a document that is no longer `pending_upload`, it answers the document as it is.',
          '`409 conflict` reason `upload_missing` when no bytes arrived yet; after the link expired without bytes the document is `rejected`, `upload_expired`.',
          SCOPE_RULE,
          'Reading the answer (its `title`) is access-logged.',
        ].join('\n\n'),
        params: IdParams,
        response: { 200: { ...DocumentSchema, examples: [EXAMPLE] } },
      },
      config: { scopes: ['documents:write'], reasons: DOCUMENT_REASONS.complete, errorStatuses: [403, 409] },
    },
    async (request) => {
      const row = await completeDocument(deps, request.actor, request.params.id);
      await logRead(request, [row.id], ['title']);
      return documentView(row);
    },
  );

  app.get(
    '/v1/documents',
    {
      schema: {
        operationId: 'listDocuments',
        tags: [TAG],
        summary: 'List documents',
        description: [
          'Order: by last modification, oldest first, then by id (resume with `updatedSince`). Filters: `patientId`, `category`, `status`, `updatedSince` (modified at or after it). Archived documents are left out unless `includeArchived=true`.',
          'Without `clinical:read` the clinical categories are left out of the list; asking for one with `category` is `403 insufficient_scope`.',
          'The read of the titles is access-logged.',
        ].join('\n\n'),
        querystring: DocumentListQuery,
        response: { 200: Page(DocumentSchema) },
      },
      config: { scopes: ['documents:read'], errorStatuses: [403] },
    },
    async (request) => {
      const page = await ctx.reads.run(request.actor, (db) => listDocuments(db, request.actor, request.query));
      await logRead(
        request,
        page.data.map((d) => d.id),
        ['title'],
      );
      return page;
    },
  );

  app.get(
    '/v1/documents/:id',
    {
      schema: {
        operationId: 'getDocument',
        tags: [TAG],
        summary: 'Read a document',
        description: [
          'The metadata of one document, archived ones included (`archivedAt`; `purgedAt` once its bytes are gone).',
          SCOPE_RULE,
          'Access-logged (`title`).',
        ].join('\n\n'),
        params: IdParams,
        response: { 200: { ...DocumentSchema, examples: [EXAMPLE] } },
      },
      config: { scopes: ['documents:read'], errorStatuses: [403] },
    },
    async (request) => {
      const row = await ctx.reads.run(request.actor, (db) => getDocument(db, request.actor, request.params.id));
      await logRead(request, [row.id], ['title']);
      return documentView(row);
    },
  );

  app.get(
    '/v1/documents/:id/content',
    {
      schema: {
        operationId: 'getDocumentContent',
        tags: [TAG],
        summary: 'The bytes of a document, or a short-lived link to them',
        description: [
          'Default (`delivery=bytes`): the bytes, streamed, with their `Content-Type` (`text/plain; charset=utf-8` for plain text), `Content-Length`, `Content-Disposition: attachment` (with the file name), `X-Content-Type-Options: nosniff` and `Digest`-like `X-Content-SHA256`: a browser saves the file and never renders it as a page of this origin.',
          '`delivery=link`: `200` JSON with a signed `url` valid 5 minutes (fs storage: the service’s own single-use link; S3 storage: a presigned GET of the store, usable until it expires) — for a bot that hands the file on.',
          '`409 conflict` reason `not_available` when the document is not `available` (`details.status`) or its bytes were purged (archived beyond the retention period, or the patient erased).',
          SCOPE_RULE,
          'Every read is access-logged (`content`).',
        ].join('\n\n'),
        params: IdParams,
        querystring: ContentQuerySchema,
        response: {
          200: {
            description: 'The bytes (`delivery=bytes`) or a link (`delivery=link`)',
            content: {
              'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
              'application/json': { schema: ContentLinkSchema },
            },
          },
        },
      },
      config: { scopes: ['documents:read'], reasons: DOCUMENT_REASONS.content, errorStatuses: [403, 409] },
    },
    async (request, reply) => {
      const row = await readableDocument(ctx.db, request.actor, request.params.id);
      if (request.query.delivery === 'link') {
        const link = await contentLink(deps, row, linkBase(ctx, request));
        await logRead(request, [row.id], ['content']);
        return reply.type('application/json; charset=utf-8').send(link);
      }
      const bytes = await openContent(deps, row);
      await logRead(request, [row.id], ['content']);
      return (reply as FastifyReply).headers(downloadHeaders(row)).header('x-content-sha256', row.sha256).send(bytes);
    },
  );

  app.delete(
    '/v1/documents/:id',
    {
      schema: {
        operationId: 'archiveDocument',
        tags: [TAG],
        summary: 'Archive a document',
        description: [
          `Archives the document (\`204\`; again: \`204\`). It leaves the list (unless \`includeArchived\`) and its bytes stay readable until they are purged ${ctx.config.documents.retentionDays} days later (DOCUMENT_RETENTION_DAYS); the row stays, with \`purgedAt\`. Erasing the patient purges their documents' bytes at once.`,
          SCOPE_RULE,
        ].join('\n\n'),
        params: IdParams,
        response: { 204: Type.Null({ description: 'Archived' }) },
      },
      config: { scopes: ['documents:write'], errorStatuses: [403] },
    },
    async (request, reply) => {
      await archiveDocument(ctx.db, request.actor, request.params.id);
      return reply.status(204).send(null);
    },
  );
}
