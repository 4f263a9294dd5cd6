// Tells the application when the service announces that an operation it calls is deprecated (RFC 9745's
// Deprecation header, with RFC 8594's Sunset and Link rel="deprecation"): by default one console warning per operation.
import type { Middleware } from 'openapi-fetch';
import { linksOf } from './link-header.js';

export interface DeprecationNotice {
  /** `GET /plants`: the method and the path as openapi.yaml writes it. */
  operation: string;
  /** When it was deprecated: the Deprecation header's date (`@<Unix seconds>`); undefined if the header holds no such date. */
  deprecatedAt: Date | undefined;
  /** After this the operation (or the parameter used) may be gone: the Sunset header; undefined if absent or not a date. */
  sunset: Date | undefined;
  /** Where to read what to use instead: the targets of Link rel="deprecation", as written (often relative to the service). */
  links: string[];
  /** The answer that carried it (its body is not read). */
  response: Response;
}

export type OnDeprecated = (notice: DeprecationNotice) => void;

const day = (date: Date | undefined) => (date === undefined ? 'a date not given' : date.toISOString().slice(0, 10));

/** What the client does by default: a console warning, once per operation for the client's lifetime. */
export function warnOncePerOperation(): OnDeprecated {
  const warned = new Set<string>();
  return (notice) => {
    if (warned.has(notice.operation)) return;
    warned.add(notice.operation);
    const see = notice.links.length > 0 ? `; see ${notice.links.join(', ')}` : '';
    console.warn(
      `@plant-store/client: ${notice.operation} is deprecated (since ${day(notice.deprecatedAt)}), ` +
        `and may be gone after ${day(notice.sunset)}${see}`,
    );
  };
}

/** RFC 9745: a Structured Field Date, `@` and an integer of seconds since the Unix epoch. */
function deprecationDate(header: string): Date | undefined {
  const match = /^@(-?\d{1,15})$/.exec(header.trim());
  return match === null ? undefined : new Date(Number(match[1]) * 1000);
}

function httpDate(header: string | null): Date | undefined {
  const time = header === null ? NaN : Date.parse(header);
  return Number.isNaN(time) ? undefined : new Date(time);
}

/** The middleware that calls `onDeprecated` for every answer that carries a Deprecation header. */
export function deprecationNotices(onDeprecated: OnDeprecated): Middleware {
  return {
    onResponse({ request, schemaPath, response }) {
      const header = response.headers.get('deprecation');
      if (header === null) return undefined;
      onDeprecated({
        operation: `${request.method} ${schemaPath}`,
        deprecatedAt: deprecationDate(header),
        sunset: httpDate(response.headers.get('sunset')),
        links: linksOf(response.headers.get('link'), 'deprecation'),
        response,
      });
      return undefined;
    },
  };
}
