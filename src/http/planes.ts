/**
 * Every route belongs to one plane, and its plane brings its gate. Security is decided by the
 * route the router matched, never by reading the request line: `/%61dmin/v1/clinics`,
 * `//v1/tasks` or `GET http://host/admin/v1/clinics` reach a route only as the router decodes
 * them, and then they meet that route's gate like any other spelling.
 *
 * - `public`: no key (health, the OpenAPI document, the docs page);
 * - `v1`: an API key, its rate limits and the route's scopes;
 * - `admin`: the deployment's ADMIN_TOKEN (the plane is not mounted without one); a route that
 *   acts in the clinic of its path (`config.clinicActor`) gets its actor from the gate.
 *
 * A plane is an encapsulated Fastify context: the gate's hooks run for the routes registered
 * inside it and nowhere else. A route registered outside every plane stops the start.
 */
import type { FastifyInstance } from 'fastify';
import type { ConstraintStrategy, HTTPVersion } from 'find-my-way';

export type Plane = 'public' | 'v1' | 'admin';

export interface PlannedRoute {
  method: string;
  url: string;
  plane: Plane;
  /** A v1 route's scopes (the agent tools list only what a key may call). */
  scopes?: readonly string[];
  /** Whether it takes an Idempotency-Key (`config.idempotent`): an agent tool's key is then its call ledger's record. */
  takesKey?: boolean;
  /** Its schema as registered: the agent tools are checked against their operations' (agent-perform.ts). */
  schema?: { operationId?: string; params?: unknown; querystring?: unknown; body?: unknown; response?: Record<string, unknown> };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The plane of this encapsulated context; undefined outside every plane. */
    plane?: Plane;
    /** Every route with its plane, as registered (tests walk it). */
    plannedRoutes: readonly PlannedRoute[];
  }
  interface FastifyContextConfig {
    /** Set from the context the route was registered in (never by the route itself). */
    plane?: Plane;
  }
}

/** The listener a request arrived on, when the back office has its own (ADMIN_PORT). */
const ADMIN_LISTENER = Symbol('admin listener');
type Tagged = { [ADMIN_LISTENER]?: true };

/**
 * A router constraint: admin routes match only requests that arrived on the back-office
 * listener, every other route only requests on the public one. To the public listener the
 * back office does not exist (404 from the router), and the reverse.
 */
type Store = ReturnType<ReturnType<ConstraintStrategy<HTTPVersion.V1, string>['storage']>['get']>;
export const listenerConstraint: ConstraintStrategy<HTTPVersion.V1, string> = {
  name: 'listener',
  storage() {
    const handlers = new Map<string, Store>();
    return { get: (value: string) => handlers.get(value) ?? null, set: (value: string, store: Store) => void handlers.set(value, store) };
  },
  deriveConstraint: (req: object) => ((req as Tagged)[ADMIN_LISTENER] ? 'admin' : 'public'),
  mustMatchWhenDerived: true,
};

/** Marks a request as arrived on the back-office listener (its server's request handler calls this). */
export function tagAdminRequest(req: object): void {
  (req as Tagged)[ADMIN_LISTENER] = true;
}

/** Whether a request arrived on the back-office listener (where only admin routes exist). */
export function arrivedOnAdminListener(req: object): boolean {
  return (req as Tagged)[ADMIN_LISTENER] === true;
}

export class RouteWithoutGateError extends Error {}

/** A route with a body schema that does not say which checks of its body the schema leaves to the service. */
export class RouteWithoutBodyChecksError extends Error {}

/**
 * Checks every route as it is registered: it must sit inside a plane, a v1 route must state its
 * scopes (an empty list when any valid key may call it), only an admin route whose path names
 * `:clinicId` may ask for the clinic's actor (`config.clinicActor`), and a route with a body
 * schema must state `config.bodyIssues` (its pure checks, or `false`: the schema says it all),
 * so that no operation forgets to name its rules' wrong fields with the schema's. Stamps the plane on the
 * route's config, and with a separate back-office listener, the listener constraint.
 */
export function requirePlanes(app: FastifyInstance, options: { separateAdminListener: boolean }): void {
  const table: PlannedRoute[] = [];
  app.decorate('plannedRoutes', table);
  app.addHook('onRoute', function (this: FastifyInstance, route) {
    const plane = this.plane;
    const name = `${[route.method].flat().join(',')} ${route.url}`;
    if (plane === undefined) throw new RouteWithoutGateError(`${name} is registered outside a plane (public, v1, admin): it would have no gate`);
    const schema = route.schema as PlannedRoute['schema'];
    for (const method of [route.method].flat())
      table.push({ method, url: route.url, plane, scopes: route.config?.scopes, takesKey: Boolean(route.config?.idempotent), schema });
    route.config = { ...route.config, plane };
    if (plane === 'v1' && !Array.isArray(route.config.scopes)) throw new RouteWithoutGateError(`${name} is a v1 route without config.scopes`);
    // Only the admin gate builds a clinic's actor, and only from the clinic its path names.
    if (route.config.clinicActor && (plane !== 'admin' || !/\/:clinicId(\/|$)/.test(route.url)))
      throw new RouteWithoutGateError(`${name} declares config.clinicActor outside the admin plane or without :clinicId in its path`);
    const bodyIssues = (route.config as { bodyIssues?: unknown }).bodyIssues;
    if (route.schema?.body !== undefined && typeof bodyIssues !== 'function' && bodyIssues !== false)
      throw new RouteWithoutBodyChecksError(`${name} has a body schema without config.bodyIssues (its checks, or false)`);
    if (options.separateAdminListener) route.constraints = { ...route.constraints, listener: plane === 'admin' ? 'admin' : 'public' };
  });
}

/**
 * Registers `routes` inside a new context of `plane`, behind the hooks that `gate` adds to it;
 * `null` states that these routes have no gate (health, the benchmarks' bare ceiling).
 */
export async function registerPlane(
  app: FastifyInstance,
  plane: Plane,
  gate: ((scope: FastifyInstance) => void) | null,
  routes: (scope: FastifyInstance) => void | Promise<void>,
): Promise<void> {
  await app.register(async (scope) => {
    scope.decorate('plane', plane);
    gate?.(scope);
    await routes(scope);
  });
}
