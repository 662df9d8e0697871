/**
 * The headers every download of a document's bytes carries, written once for
 * `GET /v1/documents/{id}/content`, the fs driver's download link, and the type and disposition
 * the s3 driver's presigned GET asks the store for. The bytes are the patient's, never a page of
 * this origin: `attachment` (saved, not shown) and `nosniff` (the browser keeps the declared
 * type). Plain text passed the whole-text check (UTF-8), so it says its charset.
 */
interface Downloadable {
  content_type: string;
  size_bytes: number;
  filename: string | null;
}

/** The type a download is served with: the document's, with `charset=utf-8` for plain text. */
export const servedType = (contentType: string) => (contentType === 'text/plain' ? 'text/plain; charset=utf-8' : contentType);

/** `attachment`, with the file name in RFC 8187 form (`'`, `(`, `)` and `*` are not attr-chars: encoded too). */
export function attachment(filename: string | null): string {
  if (!filename) return 'attachment';
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename*=UTF-8''${encoded}`;
}

export function downloadHeaders(doc: Downloadable): Record<string, string> {
  return {
    'content-type': servedType(doc.content_type),
    'content-length': String(doc.size_bytes),
    'content-disposition': attachment(doc.filename),
    'x-content-type-options': 'nosniff',
  };
}
