// Reads link targets by relation type (rel="next", rel="deprecation") from an RFC 8288 Link header.

/** One link-value: `<target>` followed by `; name=value` parameters (quoted or not). */
const LINK_VALUE = /<([^>]*)>((?:\s*;\s*[^;,=\s]+(?:\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))?)*)/g;
const PARAMETER = /;\s*([^;,=\s]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;,\s]*)))?/g;

/** The targets of the links whose rel includes `relation`, as written (often relative URLs), in order. */
export function linksOf(header: string | null | undefined, relation: string): string[] {
  const targets: string[] = [];
  if (!header) return targets;
  for (const [, target, parameters] of header.matchAll(LINK_VALUE)) {
    for (const [, name, quoted, bare] of (parameters ?? '').matchAll(PARAMETER)) {
      // rel may hold several space-separated relation types, compared case-insensitively.
      const relations = (quoted ?? bare ?? '').toLowerCase().split(/\s+/);
      if (name?.toLowerCase() === 'rel' && relations.includes(relation)) targets.push(target ?? '');
    }
  }
  return targets;
}

/** The target of the first link whose rel includes "next", as written (often a relative URL). */
export const nextLink = (header: string | null | undefined): string | undefined => linksOf(header, 'next')[0];
