/** Back office: a test clinic back to its seeded demo state (`dental-clinic demo reset`). */
import type { AppContext } from '../../../context.js';
import { ClinicParams } from '../../../core/schemas.js';
import { DEMO_REASONS } from '../../../demo/reasons.js';
import { resetDemoClinic } from '../../../demo/reset.js';
import { DemoResetSchema } from '../../../demo/schema.js';
import type { App } from '../../types.js';

export function registerDemoAdminRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/admin/v1/clinics/:clinicId/demo-reset',
    {
      schema: {
        operationId: 'adminResetDemoClinic',
        tags: ['Tenants'],
        summary: 'Put a test clinic back to its seeded demo state',
        description: [
          'Deletes the clinic’s patients, appointments, calendars, doctors, chairs, staff, leads, calls, conversations, tasks, billing and documents (one transaction), then seeds the demo agenda of `npm start` again: four calendars with their doctors and chairs, 50 patients (the README’s caller Giulia Rossi, +39 333 123 4567, first), appointments over the next two weeks, a chat, tasks, a payment plan, a quote and an invoice. New ids each time.',
          'Kept: the clinic, its facilities (opening hours set back to the demo’s; two are made if it has fewer), its API keys, webhook destinations, events, deliveries and access log. The seed records the events a real change would, so destinations and `dental-clinic listen` receive them. If a reset is interrupted, run it again.',
          'Only a test clinic: a live clinic is `403 forbidden`, reason `live_clinic`; an unknown clinic `404`.',
        ].join('\n\n'),
        params: ClinicParams,
        response: { 200: DemoResetSchema },
      },
      config: { clinicActor: true, reasons: DEMO_REASONS.reset },
    },
    async (request) => {
      return resetDemoClinic(ctx.db, request.actor);
    },
  );
}
