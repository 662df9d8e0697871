/** The back-office API under /admin/v1, one file per area. */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';
import { registerAgendaAdminRoutes } from './agenda.js';
import { registerDemoAdminRoutes } from './demo.js';
import { registerEventAdminRoutes } from './events.js';
import { registerKeyRoutes } from './keys.js';
import { registerOutboundAdminRoutes } from './outbound.js';
import { registerConfirmationAdminRoutes } from './confirmations.js';
import { registerPeopleAdminRoutes } from './people.js';
import { registerTenantRoutes } from './tenants.js';

export function registerAdminRoutes(app: App, ctx: AppContext): void {
  registerTenantRoutes(app, ctx);
  registerKeyRoutes(app, ctx);
  registerPeopleAdminRoutes(app, ctx);
  registerAgendaAdminRoutes(app, ctx);
  registerEventAdminRoutes(app, ctx);
  registerDemoAdminRoutes(app, ctx);
  registerOutboundAdminRoutes(app, ctx);
  registerConfirmationAdminRoutes(app, ctx);
}
