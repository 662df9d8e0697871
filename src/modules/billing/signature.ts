/**
 * The signed document that accepts a quote: a document of the same clinic and
 * patient, that the key sees, `available` (its bytes checked and stored, not purged), of a
 * category that holds a signature (`consent`, `quote`), and not a document of another quote.
 * Any other id is `409 conflict` with a reason of its own; an absent id, another clinic's and
 * one of a facility the key cannot see are the same answer (`signed_document_not_found`).
 */
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import type { Transaction } from '../../db/transaction.js';
import { hasContent } from '../documents/index.js';
import { signedDocumentOf } from './quote-store.js';

/** Document categories that can hold a patient's signature on a quote. */
const SIGNATURE_CATEGORIES: readonly string[] = ['consent', 'quote'];

export const SIGNED_DOCUMENT_REASONS = [
  'signed_document_not_found',
  'signed_document_mismatch',
  'signed_document_not_available',
  'signed_document_not_signature',
] as const;

export async function checkSignedDocument(trx: Transaction, actor: Actor, quote: { id: string; patient_id: string }, documentId: string): Promise<void> {
  const doc = await signedDocumentOf(trx, actor, documentId);
  const details = { field: 'signedDocumentId' };
  if (!doc) throw ApiError.conflict('signed_document_not_found', details, 'Il documento firmato non esiste in questo studio.');
  if (doc.patient_id !== quote.patient_id || (doc.quote_id !== null && doc.quote_id !== quote.id))
    throw ApiError.conflict('signed_document_mismatch', details, 'Il documento firmato è di un altro paziente o di un altro preventivo.');
  if (!hasContent(doc)) throw ApiError.conflict('signed_document_not_available', { ...details, status: doc.status }, 'Il documento firmato non è disponibile.');
  if (!SIGNATURE_CATEGORIES.includes(doc.category))
    throw ApiError.conflict('signed_document_not_signature', { ...details, category: doc.category }, 'Il documento non è un consenso o un preventivo firmato.');
}
