/** /v1/calls */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerCallRoutes(_app: App, _ctx: AppContext): void {}
