/**
 * The body-rate floor of an upload link's body. An upload may take minutes
 * on a slow line, so it is exempt from REQUEST_TIMEOUT_MS (src/http/connections.ts); instead,
 * in every window of UPLOAD_RATE_WINDOW_MS at least UPLOAD_MIN_BYTES_PER_SECOND x the window
 * must arrive, or the upload is cut off: a client that trickles, or went silent, does not keep
 * its socket, nor its link reserved (the cut-off body fails the upload, which frees the link).
 *
 * It reads the socket's byte counter on a timer and never touches the body stream, so the
 * handler's streaming is unchanged.
 */
import type { IncomingMessage } from 'node:http';

interface BodyRateFloor {
  bytesPerSecond: number;
  windowMs: number;
}

/** Watches `request`'s body until it is complete or closed; calls `tooSlow` once if a window falls short. */
export function watchBodyRate(request: IncomingMessage, floor: BodyRateFloor, tooSlow: () => void, done: () => void): void {
  const socket = request.socket;
  const least = (floor.bytesPerSecond * floor.windowMs) / 1000;
  let seen = socket.bytesRead;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    done();
  };
  const timer = setInterval(() => {
    if (request.complete || socket.destroyed) return stop();
    const now = socket.bytesRead;
    if (now - seen < least) {
      stop();
      tooSlow();
      return;
    }
    seen = now;
  }, floor.windowMs);
  timer.unref();
  request.once('end', stop);
  request.once('close', stop);
}
