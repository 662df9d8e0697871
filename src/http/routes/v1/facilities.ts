/** /v1/facilities (spec 2.11, 4.9). */
import type { AppContext } from '../../../context.js';
import { ReadCache } from '../../../db/read-cache.js';
import { readFacility, visibleFacility, type FacilityRead, FacilitySchema } from '../../../modules/facilities/index.js';
import { setEtag } from '../../etag.js';
import { IdParams } from '../../../core/schemas.js';
import type { App } from '../../types.js';

export function registerFacilityRoutes(app: App, ctx: AppContext): void {
  // Facilities change rarely and are read by every booking flow: served from memory, already
  // serialized, dropped by the change feed at the commit of any change to the clinic's facilities.
  const facilities = new ReadCache<{ read: FacilityRead; body: string } | null>(ctx.changes, 'facilities', 10_000);

  app.get(
    '/v1/facilities/:id',
    {
      schema: {
        operationId: 'getFacility',
        tags: ['Clinic'],
        summary: 'Read a facility',
        description:
          'Where the clinic is and its opening hours. A facility the key is not limited to is `404`. Served from memory and dropped at the commit of any change to the clinic’s facilities: a change made through another server process is seen about a millisecond after its commit.',
        params: IdParams,
        response: { 200: FacilitySchema },
      },
      config: { etag: true, scopes: ['clinic:read'] },
    },
    async (request, reply) => {
      const { clinicId } = request.actor;
      const id = request.params.id.toLowerCase();
      const found = await facilities.get(clinicId, id, async () => {
        const read = await readFacility(ctx.db, clinicId, id);
        return read && { read, body: reply.serialize(read.view) as string };
      });
      const { version } = visibleFacility(request.actor, found?.read ?? null); // 404 unless found and seen
      setEtag(reply, version);
      // Already serialized by the route's response schema: a JSON string is sent as it is.
      return reply.type('application/json; charset=utf-8').send(found!.body as never);
    },
  );
}
