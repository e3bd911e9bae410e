import type { PublicRoute } from './public-route.js';
import { feedRoutes } from './feed-routes.js';
import { monitorRoutes } from './monitor-routes.js';
import { statusPageRoutes } from './status-page-routes.js';
import { statuspageRoutes } from './statuspage-routes.js';
import { subscriptionRoutes } from './subscription-routes.js';
import { trackerRoutes } from './tracker-routes.js';

/** Every public route, in the order they are matched. */
export const publicRoutes: readonly PublicRoute[] = [
  ...statusPageRoutes,
  ...statuspageRoutes,
  ...feedRoutes,
  ...trackerRoutes,
  ...monitorRoutes,
  ...subscriptionRoutes,
];
