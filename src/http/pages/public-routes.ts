import type { PublicRoute } from './public-route.js';
import { statusPageRoutes } from './status-page-routes.js';

/** Every public route, in the order they are matched. */
export const publicRoutes: readonly PublicRoute[] = [...statusPageRoutes];
