/**
 * The service's own links: `/files/upload/{token}` with either storage driver (the s3 driver's
 * store cannot make a presigned PUT single-use), `/files/download/{token}` with the fs driver
 * (the s3 driver's downloads are presigned GETs of the store). They are in the public plane with
 * a gate of their own: the link's signature. No API key is involved: whoever holds an
 * unexpired, unused link may use it once. The gate checks the HMAC and the expiry and claims the
 * link's single use (in the database, so every process agrees) before a byte of the body is read.
 *
 * The upload's body is the raw file, streamed to the storage (never held whole in memory; with
 * s3, one PUT of the declared length) and checked on the way: this plane has its own
 * content-type parser that leaves the body unread, the JSON body limit of the rest of the API
 * does not apply, the link's declared size does (one byte more and the upload stops).
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../core/errors.js';
import {
  downloadHeaders,
  UploadOutcomeSchema,
  downloadThroughLink,
  uploadThroughLink,
  useLink,
  depsOf,
  verifyLink,
  type LinkClaims,
} from '../../modules/documents/index.js';
import { watchBodyRate } from '../body-rate.js';
import { answerAndClose, rawErrorAnswer } from '../client-error.js';
import { exemptFromRequestTimeout } from '../connections.js';
import { admitOrRefuse } from '../plugins/caller.js';
import { FILES_PER_MINUTE, filesRules, type RateLimiter, type RateLimits } from '../rate-limit/limiter.js';
import type { App } from '../types.js';

const TAG = 'Documents';
const LINK_REASONS = { forbidden: ['link_invalid', 'link_expired', 'link_used'] } as const;
const FILES_BUDGET = `Upload and download links are limited per client address: ${FILES_PER_MINUTE} requests a minute (\`429 rate_limited\` with \`Retry-After\` beyond; a refused request does not use the link).`;
const TokenParams = Type.Object({ token: Type.String({ minLength: 10, maxLength: 2000 }) }, { additionalProperties: false });

declare module 'fastify' {
  interface FastifyRequest {
    /** The claims of the signed link this request uses (files plane only). */
    link?: LinkClaims;
  }
}

/**
 * The files plane's gate: a budget per client address (like every plane), then a valid,
 * unexpired, unused link, or 403 with the reason. A HEAD looks at a download link without using
 * it. Once an upload's link is claimed, its body is governed by the body-rate floor instead of
 * REQUEST_TIMEOUT_MS (src/http/body-rate.ts): too slow, the upload is cut off and frees the link.
 */
export function signedLinkGate(ctx: AppContext, limiter: RateLimiter, limits: RateLimits, onRateLimited?: () => void): (scope: FastifyInstance) => void {
  const { uploadMinBytesPerSecond, uploadRateWindowMs } = ctx.config.connections;
  const floor = { bytesPerSecond: uploadMinBytesPerSecond, windowMs: uploadRateWindowMs };
  const deps = depsOf(ctx);
  const tooSlow = rawErrorAnswer(
    ApiError.invalid('body', [
      { path: '', message: `il file arriva troppo lentamente (meno di ${uploadMinBytesPerSecond} byte al secondo): caricamento interrotto` },
    ]),
  );
  return (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      admitOrRefuse(reply, await limiter.check(filesRules(limits, request.ip)), onRateLimited);
      const op = request.routeOptions.url?.startsWith('/files/upload/') ? 'upload' : 'download';
      const token = (request.params as { token?: string }).token ?? '';
      const check = verifyLink(ctx.documents.linkSecret, token, op);
      if (!check.ok) throw ApiError.forbidden(check.why === 'expired' ? 'link_expired' : 'link_invalid', {}, 'Il link non è valido o è scaduto.');
      await useLink(deps, check.claims, request.method === 'HEAD');
      request.link = check.claims;
      if (op === 'upload') {
        const socket = request.raw.socket;
        exemptFromRequestTimeout(socket, true);
        watchBodyRate(
          request.raw,
          floor,
          () => answerAndClose(socket, tooSlow),
          () => exemptFromRequestTimeout(socket, false),
        );
      }
    });
    // The raw bytes are the body: left unread here, streamed by the handler.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request: FastifyRequest, _payload: unknown, done: (err: null, body?: undefined) => void) => done(null));
  };
}

export function registerFileRoutes(app: App, ctx: AppContext): void {
  const deps = depsOf(ctx);
  app.put(
    '/files/upload/:token',
    {
      schema: {
        operationId: 'uploadDocumentBytes',
        tags: [TAG],
        summary: 'Send the bytes of a document (upload link)',
        description: [
          'The `upload.url` of `POST /v1/documents`, with either storage (fs or S3: with S3 the service streams the bytes into the store): send the raw bytes as the body with the `upload.headers` given, once, before `upload.expiresAt`. No API key: the link is signed.',
          'The bytes are checked at once, as `POST /v1/documents/{id}/complete` would (which then just answers the document): the answer is the outcome, `available`, `pending_scan` or `rejected` with its reason (fewer bytes than declared: `size_mismatch`, nothing stored).',
          '`403 forbidden` reason `link_invalid` (tampered or not an upload link), `link_expired`, `link_used` (a link is single-use, and useless once the document is no longer `pending_upload`; an upload that broke midway, the client gone, frees it again, and so does the service stopping mid-upload, a crash included, once DOCUMENT_LINK_LEASE_SECONDS (15 s by default) have passed: send the bytes again to the same link until it expires). More bytes than declared stop the upload with `400`, nothing stored, and free the link too.',
          `No total time limit: the bytes must keep coming, at least ${ctx.config.connections.uploadMinBytesPerSecond} bytes a second over every ${ctx.config.connections.uploadRateWindowMs / 1000} s (UPLOAD_MIN_BYTES_PER_SECOND, UPLOAD_RATE_WINDOW_MS). A slower or stalled upload is cut off (\`400\`, connection closed), nothing stored, and its link is free again: send the bytes again.`,
          FILES_BUDGET,
        ].join('\n\n'),
        params: TokenParams,
        response: {
          200: UploadOutcomeSchema,
        },
      },
      config: { reasons: LINK_REASONS, errorStatuses: [403] },
    },
    async (request) => {
      const length = request.headers['content-length'];
      const done = await uploadThroughLink(deps, request.link!, {
        bytes: request.raw,
        length: length === undefined ? null : Number(length),
        sentWhole: () => request.raw.complete,
      });
      return { id: done.id, status: done.status, rejectedReason: done.rejected_reason };
    },
  );

  // With s3 a download link is the store's presigned GET: this route would serve nothing.
  if (ctx.documents.store.kind !== 'fs') return;
  app.get(
    '/files/download/:token',
    {
      schema: {
        operationId: 'downloadDocumentBytes',
        tags: [TAG],
        summary: 'The bytes of a document (fs storage download link)',
        description: [
          'The `url` of `GET /v1/documents/{id}/content?delivery=link` with the default (fs) storage: the bytes with their content type, `Content-Disposition: attachment` and `X-Content-Type-Options: nosniff`, once, within 5 minutes. `403 forbidden` reason `link_invalid`, `link_expired` or `link_used`.',
          'A `HEAD` (a link checker, a client asking the size first) answers the same headers and does not use the link.',
          FILES_BUDGET,
        ].join('\n\n'),
        params: TokenParams,
        response: { 200: { description: 'The bytes', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } } },
      },
      config: { reasons: LINK_REASONS, errorStatuses: [403] },
    },
    async (request, reply) => {
      // A HEAD (a link checker, a client asking the size) answers the headers and leaves the link unused.
      const { row, bytes } = await downloadThroughLink(deps, request.link!, request.method === 'HEAD');
      return (reply as FastifyReply).headers(downloadHeaders(row)).send(bytes ?? Readable.from([]));
    },
  );
}
