/** Files of each type, their hash, and a patient to attach them to. */
import { createHash, randomBytes } from 'node:crypto';
import type { OperationTypes } from '../../../packages/client/src/index.js';
import type { TestServer } from '../../helpers/server.js';

/** The body of createDocument, as the contract types it. */
export type DocumentInput = OperationTypes['createDocument']['requestBody']['content']['application/json'];

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A PDF of `size` bytes (header, random body: `file-type` reads the magic number). */
export function pdf(size = 2048): Buffer {
  const head = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1');
  return Buffer.concat([head, randomBytes(Math.max(0, size - head.length))]).subarray(0, size);
}

export function png(): Buffer {
  const ihdr = Buffer.from('0000000d49484452000000010000000108060000001f15c489', 'hex');
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), ihdr, Buffer.from('0000000049454e44ae426082', 'hex')]);
}

export const text = (s = 'Referto: nessuna carie.\n') => Buffer.from(s, 'utf8');

/** The EICAR test file: every scanner flags it, it harms nothing. */
export const EICAR = Buffer.from('X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*', 'latin1');

export async function patient(server: TestServer, token: string, facilityId?: string): Promise<string> {
  const created = await server.api(token).callWithResponse('createPatient', {
    body: { firstName: 'Giulia', lastName: `Bianchi ${randomBytes(4).toString('hex')}`, ...(facilityId ? { facilityId } : {}) },
  });
  if (created.response.status !== 201) throw new Error(`patient: ${created.response.status}`);
  return created.data.id;
}

export function inline(patientId: string, bytes: Buffer, extra: Partial<DocumentInput> = {}): DocumentInput {
  return {
    patientId,
    category: 'quote',
    title: 'Preventivo impianto',
    filename: 'preventivo.pdf',
    contentType: 'application/pdf',
    sizeBytes: bytes.length,
    sha256: sha256(bytes),
    contentBase64: bytes.toString('base64'),
    ...extra,
  };
}

export function announced(patientId: string, bytes: Buffer, extra: Partial<DocumentInput> = {}): DocumentInput {
  const { contentBase64: _bytes, ...body } = inline(patientId, bytes, extra);
  return body;
}
