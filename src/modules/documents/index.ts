/** The front door of src/modules/documents: what code outside the module uses of it (test/layers.test.ts). */
export { documentBodyIssues } from './checks.js';
export { downloadHeaders } from './download.js';
export { documentJobs } from './jobs.js';
export { downloadThroughLink, uploadThroughLink, useLink } from './link-uses.js';
export { DOCUMENT_REASONS } from './reasons.js';
export { createDocumentsRuntime, offlineDocumentsRuntime } from './runtime.js';
export { ContentLinkSchema, ContentQuerySchema, DocumentListQuery, DocumentSchema, INLINE_MAX_BASE64, NewDocumentBody, UploadOutcomeSchema } from './schema.js';
export {
  archiveDocument,
  completeDocument,
  contentLink,
  createDocument,
  depsOf,
  documentView,
  forgetPatientDocuments,
  getDocument,
  hasContent,
  listDocuments,
  openContent,
  purgePatientDocuments,
  readableDocument,
} from './service.js';
export type { DocumentsDeps } from './service.js';
export { checkDocumentFolder } from './storage/fs-folder.js';
export { verifyLink } from './storage/links.js';
export type { LinkClaims } from './storage/links.js';
