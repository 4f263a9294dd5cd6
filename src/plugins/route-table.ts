// Records every route as it is added, so the app can tell "wrong method" (405) from
// "no such path" (404) and tests can compare what is served with openapi.yaml.
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';

export interface RouteEntry {
  url: string;
  methods: string[];
  pattern: RegExp;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteEntry[];
  }
}

/** A Fastify route URL (`/plants/:id`, `*`) as a pattern for concrete paths; the contract tests match with it too. */
export function routePattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

/** Methods served at a concrete path such as /plants/42. */
export function methodsAt(table: RouteEntry[], path: string): string[] {
  // A catch-all route (`*`: the CORS preflight, when CORS is on) says nothing about which paths exist.
  const routes = table.filter((route) => route.url !== '*' && route.pattern.test(path));
  return [...new Set(routes.flatMap((route) => route.methods))];
}

/**
 * The paths a route serves: a prefix's '' route (/docs) is served at /prefix/ too (prefixTrailingSlash 'both', the
 * default, which onRoute is not told), and that second route has no onRoute of its own.
 */
export function servedUrls(route: Pick<RouteOptions, 'url' | 'prefixTrailingSlash'> & { routePath: string }): string[] {
  return route.routePath === '' && route.prefixTrailingSlash !== 'no-slash' ? [route.url, `${route.url}/`] : [route.url];
}

export default fp(
  async function routeTable(app: FastifyInstance) {
    const table: RouteEntry[] = [];
    app.decorate('routeTable', table);
    app.addHook('onRoute', (route) => {
      const methods = [route.method].flat();
      for (const url of servedUrls(route)) {
        const known = table.find((entry) => entry.url === url);
        if (known) known.methods.push(...methods);
        else table.push({ url, methods: [...methods], pattern: routePattern(url) });
      }
    });
  },
  { name: 'route-table' },
);
