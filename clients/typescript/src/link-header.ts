// Reads the target of rel="next" from an RFC 8288 Link header.

/** One link-value: `<target>` followed by `; name=value` parameters (quoted or not). */
const LINK_VALUE = /<([^>]*)>((?:\s*;\s*[^;,=\s]+(?:\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))?)*)/g;
const PARAMETER = /;\s*([^;,=\s]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;,\s]*)))?/g;

/** The target of the first link whose rel includes "next", as written (often a relative URL). */
export function nextLink(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  for (const [, target, parameters] of header.matchAll(LINK_VALUE)) {
    for (const [, name, quoted, bare] of (parameters ?? '').matchAll(PARAMETER)) {
      // rel may hold several space-separated relation types, compared case-insensitively.
      const relations = (quoted ?? bare ?? '').toLowerCase().split(/\s+/);
      if (name?.toLowerCase() === 'rel' && relations.includes('next')) return target;
    }
  }
  return undefined;
}
