/**
 * `405 method_not_allowed` with `Allow` (header, and `details.allow` in the envelope) for a path
 * that has routes, but none for the request's method. It answers from a plane's not-found
 * handler, so after that plane's gate: on /v1 a request without a valid key is 401 whatever its
 * method, and only a caller who may see the API learns which methods a path takes (they are in
 * the public document anyway). The back office keeps answering 404: its routes are not public,
 * and on a separate ADMIN_PORT they must not exist for the public listener at all.
 *
 * The methods come from the plane table (src/http/planes.ts) matched with find-my-way, the
 * router Fastify uses, with the same options, so "known path" means what the router means.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { ApiError } from '../core/errors.js';
import { errorEnvelope } from './errors.js';
import { arrivedOnAdminListener, type Plane } from './planes.js';

type AllowedMethods = (path: string) => string[];

/** The methods each path of these planes takes, built on first use (every route is registered by then). */
export function allowedMethodsOf(app: FastifyInstance, planes: readonly Plane[], routerOptions: { maxParamLength: number }): AllowedMethods {
  let byMethod: Map<string, ReturnType<typeof FindMyWay>> | null = null;
  const build = () => {
    const routers = new Map<string, ReturnType<typeof FindMyWay>>();
    for (const route of app.plannedRoutes) {
      if (!planes.includes(route.plane)) continue;
      let router = routers.get(route.method);
      if (!router) routers.set(route.method, (router = FindMyWay(routerOptions)));
      if (!router.hasRoute(route.method as HTTPMethod, route.url)) router.on(route.method as HTTPMethod, route.url, () => {});
    }
    return routers;
  };
  return (path) => {
    byMethod ??= build();
    const allowed: string[] = [];
    for (const [method, router] of byMethod) if (router.find(method as HTTPMethod, path)) allowed.push(method);
    return allowed.sort();
  };
}

/** A not-found handler: 405 with Allow when the path takes other methods, else 404. */
export function notFoundOrWrongMethod(allowed: AllowedMethods) {
  return (request: FastifyRequest, reply: FastifyReply): void => {
    const path = request.url.split('?')[0]!;
    let methods: string[] = [];
    try {
      // On the back office's own listener (ADMIN_PORT) the public and /v1 routes do not exist.
      if (!arrivedOnAdminListener(request.raw)) methods = allowed(path);
    } catch {
      // A path the router could not decode has no route either: 404.
    }
    const error = methods.length > 0 ? new ApiError('method_not_allowed', { allow: methods }) : ApiError.notFound();
    if (methods.length > 0) void reply.header('allow', methods.join(', '));
    void reply.status(error.status).type('application/json; charset=utf-8').send(errorEnvelope(error, request.id));
  };
}

/**
 * `Location` on every creation: a `201` answer to a POST whose body has an `id` names the
 * resource's own address when the router has a GET there (`POST /v1/patients` ->
 * `/v1/patients/{id}`). A replay of a creation answers 201 as the first time, so it says it too.
 */
export function registerLocation(app: FastifyInstance, allowed: AllowedMethods): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 201 || request.method !== 'POST' || typeof payload !== 'string' || reply.hasHeader('location')) return payload;
    const id = idOf(payload);
    if (id === undefined) return payload;
    const location = `${request.url.split('?')[0]!.replace(/\/+$/, '')}/${encodeURIComponent(id)}`;
    if (allowed(location).includes('GET')) void reply.header('location', location);
    return payload;
  });
}

/**
 * The top-level `id` of a JSON body. The serializers write it first (`{"id":"…",`), and reading
 * it there spares parsing the whole body again on every creation (JSON.parse of the answer was
 * about 2% of POST /patients' CPU under load); any other shape is parsed.
 */
export function idOf(body: string): string | undefined {
  const PREFIX = '{"id":"';
  if (body.startsWith(PREFIX)) {
    const end = body.indexOf('"', PREFIX.length);
    const id = body.slice(PREFIX.length, end);
    if (end > 0 && !id.includes('\\')) return id;
  }
  try {
    const id = (JSON.parse(body) as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
