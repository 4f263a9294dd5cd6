// An onRoute hook for a scope whose GET routes also answer HEAD (RFC 9110, 9.3.2: the same
// status and headers, no body), as load balancers and link checkers expect of open endpoints.
import type { RouteOptions } from 'fastify';
import { servedUrls, type RouteEntry } from './route-table.js';

/**
 * Adds HEAD to each GET route of the scope: the GET handler runs, and Node leaves out the body of
 * a HEAD response while Fastify keeps its Content-Length. Fastify's own `exposeHeadRoute` is set
 * per route, which routes of plugins such as Swagger UI cannot be given; this hook decides by scope.
 */
export function headLikeGet(routeTable: RouteEntry[]) {
  return (route: RouteOptions & { routePath: string }): void => {
    const methods = [route.method].flat();
    if (!methods.includes('GET') || methods.includes('HEAD')) return;
    route.method = [...methods, 'HEAD'];
    // The route table (root scope) saw the route before this hook: keep 405's Allow header true.
    const urls = servedUrls(route);
    for (const entry of routeTable) if (urls.includes(entry.url)) entry.methods.push('HEAD');
  };
}
