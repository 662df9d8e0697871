/** The public API under /v1: one file per resource. */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';
import { registerAppointmentRoutes } from './appointments.js';
import { registerCalendarRoutes } from './calendars.js';
import { registerCallRoutes } from './calls.js';
import { registerClinicRoutes } from './clinic.js';
import { registerMetaRoutes } from './meta.js';
import { registerVoiceRoutes } from './voice.js';
import { registerConversationRoutes } from './conversations.js';
import { registerDocumentRoutes } from './documents.js';
import { registerEventRoutes } from './events.js';
import { registerFacilityRoutes } from './facilities.js';
import { registerLeadRoutes } from './leads.js';
import { registerPatientRoutes } from './patients.js';
import { registerInvoiceRoutes } from './invoices.js';
import { registerPaymentPlanRoutes } from './payment-plans.js';
import { registerPaymentRoutes } from './payments.js';
import { registerTaskRoutes } from './tasks.js';
import { registerRecallRoutes } from './recalls.js';
import { registerTreatmentPlanRoutes } from './treatment-plans.js';
import { registerWaitlistRoutes } from './waitlist.js';
import { registerWebhookDeliveryRoutes } from './webhook-deliveries.js';
import { registerWebhookEndpointRoutes } from './webhook-endpoints.js';

export function registerV1Routes(app: App, ctx: AppContext): void {
  registerPatientRoutes(app, ctx);
  registerLeadRoutes(app, ctx);
  registerCallRoutes(app, ctx);
  registerAppointmentRoutes(app, ctx);
  registerCalendarRoutes(app, ctx);
  registerFacilityRoutes(app, ctx);
  registerClinicRoutes(app, ctx);
  registerMetaRoutes(app, ctx);
  registerVoiceRoutes(app, ctx);
  registerConversationRoutes(app, ctx);
  registerTaskRoutes(app, ctx);
  registerDocumentRoutes(app, ctx);
  registerPaymentPlanRoutes(app, ctx);
  registerTreatmentPlanRoutes(app, ctx);
  registerInvoiceRoutes(app, ctx);
  registerPaymentRoutes(app, ctx);
  registerWebhookEndpointRoutes(app, ctx);
  registerEventRoutes(app, ctx);
  registerWebhookDeliveryRoutes(app, ctx);
  registerWaitlistRoutes(app, ctx);
  registerRecallRoutes(app, ctx);
}
