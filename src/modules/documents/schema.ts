/**
 * Documents on the wire: the schemas /v1/documents and the back office validate and
 * serialize with, and the service's types derived from them.
 */
import { Type, type Static } from 'typebox';
import { Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';

export const DOCUMENT_CATEGORIES = ['xray', 'photo', 'consent', 'quote', 'invoice', 'referral', 'lab', 'id_document', 'other'] as const;
export type DocumentCategory = (typeof DOCUMENT_CATEGORIES)[number];

/** Categories whose documents are clinical: they also need `clinical:read` / `clinical:write`. */
export const CLINICAL_CATEGORIES: ReadonlySet<DocumentCategory> = new Set(['xray', 'photo', 'lab', 'referral', 'consent']);

/** `pending_scan`: checked and stored, waiting for a malware scanner that did not answer (retried by a job). */
export const DOCUMENT_STATUSES = ['pending_upload', 'pending_scan', 'available', 'rejected'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

export const REJECTED_REASONS = ['size_mismatch', 'checksum_mismatch', 'type_not_allowed', 'malware', 'upload_expired'] as const;
export type RejectedReason = (typeof REJECTED_REASONS)[number];

export const SCAN_RESULTS = ['not_scanned', 'pending', 'clean', 'infected'] as const;
export type ScanResult = (typeof SCAN_RESULTS)[number];

export const DOCUMENT_ORIGINS = ['api', 'chat_bot', 'voice_agent', 'back_office'] as const;
export type DocumentOrigin = (typeof DOCUMENT_ORIGINS)[number];

/** The types a document may have, read from its bytes (plain text has no magic number: it must be UTF-8 text). */
export const ALLOWED_CONTENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png', 'image/heic', 'application/dicom', 'text/plain'] as const;
export type AllowedContentType = (typeof ALLOWED_CONTENT_TYPES)[number];

/** Inline content: at most 4 MiB of bytes, so at most this many base64 characters. */
const INLINE_MAX_BYTES = 4 * 1_048_576;
export const INLINE_MAX_BASE64 = Math.ceil(INLINE_MAX_BYTES / 3) * 4;

const Sha256 = Type.String({
  minLength: 64,
  maxLength: 64,
  pattern: '^[0-9a-fA-F]{64}$',
  description: 'SHA-256 of the bytes, 64 hexadecimal digits',
  examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
});

const Links = {
  appointmentId: Nullable(Uuid({ description: 'The appointment it belongs to' })),
  quoteId: Nullable(Uuid({ description: 'The quote (treatment plan) it belongs to' })),
  invoiceId: Nullable(Uuid({ description: 'The invoice it belongs to' })),
  chatMessageId: Nullable(Uuid({ description: 'The chat message with media whose file this is' })),
};

export const UploadSchema = Type.Object(
  {
    method: Type.Literal('PUT'),
    url: Type.String({ description: 'Send the raw bytes here, once, before `expiresAt`', examples: ['https://api.example.com/files/upload/eyJ…'] }),
    headers: Type.Record(Type.String(), Type.String(), {
      description: 'Headers to send with the bytes, as given',
      examples: [{ 'content-type': 'application/pdf' }],
    }),
    expiresAt: OutputTimestamp(),
  },
  { additionalProperties: false, title: 'DocumentUpload' },
);
export type UploadView = Static<typeof UploadSchema>;

export const DocumentSchema = Type.Object(
  {
    id: Uuid(),
    patientId: Uuid(),
    facilityId: Nullable(Uuid({ description: "The patient's facility" })),
    category: StringEnum(DOCUMENT_CATEGORIES),
    title: Nullable(
      Type.String({ description: 'Clinical data: reading it is access-logged; null once the patient is erased', examples: ['Panoramica arcata superiore'] }),
    ),
    filename: Nullable(Type.String({ examples: ['panoramica-2026-03.pdf'] })),
    contentType: Type.String({ examples: ['application/pdf'] }),
    sizeBytes: Type.Integer({ examples: [482113] }),
    sha256: Type.String({ examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'] }),
    status: StringEnum(DOCUMENT_STATUSES),
    rejectedReason: Nullable(StringEnum(REJECTED_REASONS, { description: 'Why the bytes were refused (status `rejected`)' })),
    scanResult: StringEnum(SCAN_RESULTS, { description: '`not_scanned` when no scanner is configured' }),
    ...Links,
    origin: StringEnum(DOCUMENT_ORIGINS, { description: "Who created it: the key's agent kind, or the back office" }),
    upload: Type.Optional(UploadSchema),
    createdAt: OutputTimestamp(),
    updatedAt: OutputTimestamp(),
    archivedAt: Nullable(OutputTimestamp()),
    purgedAt: Nullable(OutputTimestamp({ description: 'When the bytes were deleted' })),
  },
  { additionalProperties: false, title: 'Document' },
);
export type DocumentView = Static<typeof DocumentSchema>;

export const NewDocumentBody = Type.Object(
  {
    patientId: Uuid(),
    category: StringEnum(DOCUMENT_CATEGORIES),
    title: Type.String({ minLength: 1, maxLength: 200, examples: ['Consenso informato impianto'] }),
    filename: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^/\\\\\\u0000-\\u001f]+$', examples: ['consenso-impianto.pdf'] }),
    contentType: Type.String({ minLength: 3, maxLength: 100, description: `One of ${ALLOWED_CONTENT_TYPES.join(', ')}`, examples: ['application/pdf'] }),
    sizeBytes: Type.Integer({ minimum: 1, description: 'The exact number of bytes' }),
    sha256: Sha256,
    contentBase64: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: INLINE_MAX_BASE64,
        description: 'The bytes, base64 (up to 4 MiB): one call, the answer is final',
        contentEncoding: 'base64',
        examples: ['JVBERi0xLjcKJeLjz9MKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyA+PgplbmRvYmoK'],
      }),
    ),
    appointmentId: Type.Optional(Links.appointmentId),
    quoteId: Type.Optional(Links.quoteId),
    invoiceId: Type.Optional(Links.invoiceId),
    chatMessageId: Type.Optional(Links.chatMessageId),
  },
  { additionalProperties: false },
);
export type NewDocument = Static<typeof NewDocumentBody>;

export const DocumentListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1-200 (default 50)' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    patientId: Type.Optional(Uuid()),
    category: Type.Optional(StringEnum(DOCUMENT_CATEGORIES)),
    status: Type.Optional(StringEnum(DOCUMENT_STATUSES)),
    updatedSince: Type.Optional(Type.String({ format: 'date-time' })),
    includeArchived: Type.Optional(Type.Boolean({ default: false, description: 'Archived documents are left out unless true' })),
  },
  { additionalProperties: false },
);
export type DocumentListInput = Static<typeof DocumentListQuery>;

export const ContentLinkSchema = Type.Object(
  {
    url: Type.String({ description: 'A short-lived signed link to the bytes', examples: ['https://api.example.com/files/download/eyJ…'] }),
    expiresAt: OutputTimestamp(),
    contentType: Type.String({ examples: ['application/pdf'] }),
    sizeBytes: Type.Integer({ examples: [482113] }),
  },
  { additionalProperties: false, title: 'DocumentContentLink' },
);
export type ContentLinkView = Static<typeof ContentLinkSchema>;

/** /v1/documents/{id}/content: the bytes themselves (default) or a signed link to them. */
export const ContentQuerySchema = Type.Object(
  {
    delivery: Type.Optional(Type.Union([Type.Literal('bytes'), Type.Literal('link')], { default: 'bytes', description: '`bytes` (default) or `link`' })),
  },
  { additionalProperties: false },
);

/** The files plane's answer to an upload: the document's status once its bytes are checked. */
export const UploadOutcomeSchema = Type.Object(
  { id: Uuid(), status: StringEnum(DOCUMENT_STATUSES), rejectedReason: Type.Union([StringEnum(REJECTED_REASONS), Type.Null()]) },
  { additionalProperties: false },
);
