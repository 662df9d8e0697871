/** /v1/events */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerEventRoutes(_app: App, _ctx: AppContext): void {}
