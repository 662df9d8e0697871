/** /v1/facilities (spec 2.11, 4.9). */
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import { getFacility } from '../../../modules/facilities/service.js';
import { setEtag } from '../../etag.js';
import { IdParams, Nullable, OutputTimestamp, Uuid } from '../../schemas/common.js';
import type { App } from '../../types.js';

export const FacilitySchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    street: Nullable(Type.String()),
    city: Nullable(Type.String()),
    province: Nullable(Type.String()),
    zipCode: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    email: Nullable(Type.String()),
    isMainLocation: Type.Boolean(),
    avgAppointmentMinutes: Type.Number(),
    workingSchedule: Type.Unknown({ description: 'Opening hours, as the clinic stores them' }),
    updatedAt: OutputTimestamp(),
  },
  { additionalProperties: false, title: 'Facility' },
);

export function registerFacilityRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/facilities/:id',
    {
      schema: {
        operationId: 'getFacility',
        tags: ['Clinic'],
        summary: 'Read a facility',
        description: 'Where the clinic is and its opening hours. A facility the key is not limited to is `404`.',
        params: IdParams,
        response: { 200: FacilitySchema },
      },
      config: { scopes: ['clinic:read'] },
    },
    async (request, reply) => {
      const { view, version } = await getFacility(ctx.db, request.auth, request.params.id);
      setEtag(reply, version);
      return view;
    },
  );
}
