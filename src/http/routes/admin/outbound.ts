/** Back office: the clinic's outbound settings (issue 36): how long a waitlist offer keeps its slot. */
import { clinicActor } from './actor.js';
import type { AppContext } from '../../../context.js';
import { WaitlistSettingsSchema } from '../../../modules/waitlist/schema.js';
import { getWaitlistSettings, setWaitlistSettings } from '../../../modules/waitlist/service.js';
import { ClinicParams } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Agenda (back office)';

export function registerOutboundAdminRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/admin/v1/clinics/:clinicId/waitlist-settings',
    {
      schema: {
        operationId: 'adminGetWaitlistSettings',
        tags: [TAG],
        summary: 'Read the waitlist settings',
        description: 'How long an offer of a freed slot keeps it for one waitlist entry (default 30 minutes).',
        params: ClinicParams,
        response: { 200: WaitlistSettingsSchema },
      },
    },
    async (request) => {
      const actor = await clinicActor(ctx, request, request.params.clinicId);
      return getWaitlistSettings(ctx.db, actor.clinicId);
    },
  );

  app.put(
    '/admin/v1/clinics/:clinicId/waitlist-settings',
    {
      schema: {
        operationId: 'adminSetWaitlistSettings',
        tags: [TAG],
        summary: 'Set the waitlist settings',
        description: 'Offers made from now on keep their slot `offerMinutes` (5-1440); live offers keep the expiry they were given.',
        params: ClinicParams,
        body: WaitlistSettingsSchema,
        response: { 200: WaitlistSettingsSchema },
      },
    },
    async (request) => {
      const actor = await clinicActor(ctx, request, request.params.clinicId);
      return setWaitlistSettings(ctx.db, actor.clinicId, request.body);
    },
  );
}
