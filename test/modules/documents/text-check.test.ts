/**
 * Documents served safely, fs storage, on both engines: plain text is checked
 * whole (not only its first 4100 bytes), markup is not plain text, and every download says
 * `attachment` and `nosniff`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DentalClinicClient } from '../../../packages/client/src/index.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { announced, inline, patient, text, type DocumentInput } from './helpers.js';

let server: TestServer;
let t: Tenant;
let api: DentalClinicClient;
let patientId: string;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
  api = server.api(t.token);
  patientId = await patient(server, t.token, t.facilityIds[0]);
});
afterAll(async () => server?.close());

const asText = (bytes: Buffer, extra: Partial<DocumentInput> = {}) =>
  ({ contentType: 'text/plain', category: 'other', filename: 'nota.txt', ...extra }) as const;

/** Creates the document inline and answers its status and reason. */
async function inlineOutcome(bytes: Buffer, extra: Partial<DocumentInput> = {}) {
  const { data, response } = await api.callWithResponse('createDocument', { body: inline(patientId, bytes, asText(bytes, extra)) });
  expect(response.status).toBe(201);
  return { status: data.status, rejectedReason: data.rejectedReason };
}

/** Creates the document by link and PUTs the bytes: the upload's answer. */
async function linkOutcome(bytes: Buffer) {
  const created = await api.call('createDocument', { body: announced(patientId, bytes, asText(bytes)) });
  const res = await fetch(created.upload!.url, { method: 'PUT', body: bytes as unknown as BodyInit, headers: { 'content-type': 'text/plain' } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { status: string; rejectedReason: string | null };
  return { status: body.status, rejectedReason: body.rejectedReason };
}

/** Over 4100 bytes of ordinary text, with accented letters (multi-byte in UTF-8). */
const prose = (bytes: number) =>
  text('Referto: nessuna carie. Igiene orale buona, però controllo fra sei mesi.\n'.repeat(Math.ceil(bytes / 70))).subarray(0, bytes);
/** A valid UTF-8 prefix of about `bytes` bytes (never cut inside a character). */
const proseOf = (bytes: number) =>
  text(
    prose(bytes + 8)
      .toString('utf8')
      .slice(0, bytes - 8),
  );

const ELF = Buffer.from('7f454c4602010100000000000000000002003e00', 'hex');
const ZIP = Buffer.from('504b0304140000000800', 'hex');

const rejectedAsType = { status: 'rejected', rejectedReason: 'type_not_allowed' };

describe('plain text is checked whole', () => {
  it('refuses text followed, past the first 4100 bytes, by an ELF, a ZIP, a NUL, a control byte or bytes that are not UTF-8', async () => {
    const head = proseOf(6000);
    for (const [what, tail] of [
      ['ELF', ELF],
      ['ZIP', ZIP],
      ['NUL', Buffer.from('fine\u0000', 'utf8')],
      ['escape', Buffer.from('\u001b[31m', 'utf8')],
      ['C1 control', Buffer.from('\u0085', 'utf8')],
      ['not UTF-8', Buffer.from([0x61, 0xff, 0x62])],
      ['a cut character at the end', Buffer.from('é', 'utf8').subarray(0, 1)],
    ] as const) {
      expect(await inlineOutcome(Buffer.concat([head, tail])), what).toEqual(rejectedAsType);
    }
  });

  it('refuses them through the upload link too, however far into a large file (the check streams)', async () => {
    const head = proseOf(2_000_000);
    expect(await linkOutcome(Buffer.concat([head, ELF, proseOf(1000)]))).toEqual(rejectedAsType);
    expect(await linkOutcome(Buffer.concat([head, Buffer.from('\n<script>alert(1)</script>\n')]))).toEqual(rejectedAsType);
  });

  it('accepts long text whose multi-byte characters fall across the stream chunks, with a BOM, tabs, form feeds and CRLF', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text('Nota\tclinica\r\n\f'), text('àèìòù€😀'.repeat(400_000))]);
    expect(await linkOutcome(bytes)).toEqual({ status: 'available', rejectedReason: null });
    expect(await inlineOutcome(proseOf(10_000))).toEqual({ status: 'available', rejectedReason: null });
  });

  it('refuses markup declared as plain text: HTML, SVG, XML, comments, anywhere in the text; a lone "<" is text', async () => {
    const cases = [
      '<!DOCTYPE html><html><body>Referto</body></html>',
      '<html><script>alert(document.cookie)</script></html>',
      'Referto normale.\n\n<img src=x onerror=alert(1)>',
      'Nota <B>importante</B>',
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
      '<?xml version="1.0"?><nota/>',
      'Testo <!-- commento -->',
      `${prose(9000).toString('utf8')}</blockquote\n>`,
      '\uFEFF  <iframe src="https://example.com">',
    ];
    for (const c of cases) expect(await inlineOutcome(text(c)), c.slice(0, 40)).toEqual(rejectedAsType);
    for (const ok of ['PSA < 4 ng/ml, glicemia <110; se a<b allora b>a.', 'Scrivere a <info@example.com> per il referto.', 'Pressione 120/80 <-- stabile']) {
      expect(await inlineOutcome(text(ok)), ok).toEqual({ status: 'available', rejectedReason: null });
    }
  });
});

describe('downloads', () => {
  it('send nosniff, Content-Disposition: attachment and the UTF-8 charset of plain text, as bytes and by link', async () => {
    const bytes = text('Nota per il paziente.\n');
    const created = await api.call('createDocument', { body: inline(patientId, bytes, asText(bytes, { filename: "nota (dell'igienista).txt" })) });
    expect(created.status).toBe('available');
    const direct = await fetch(`${server.url}/v1/documents/${created.id}/content`, { headers: { authorization: `Bearer ${t.token}` } });
    const link = await api.call('getDocumentContent', { params: { path: { id: created.id }, query: { delivery: 'link' } } });
    const linked = await fetch(link.url);
    for (const res of [direct, linked]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''nota%20%28dell%27igienista%29.txt");
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    }
  });
});
