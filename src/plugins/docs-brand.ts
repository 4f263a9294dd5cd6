// What the docs page shows of Plant Store: its title, its top-bar logo and its tab icon.
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

const LEAF =
  '<path d="M6 26C6 12 16 5 28 4c0 13-7 23-21 23l-1 1z" fill="#3f8f4f"/><path d="M8 25 22 11" stroke="#e9f5ec" stroke-width="2"/>';

/** The top bar's logo: a leaf and the name, white on Swagger UI's dark bar. */
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="180" height="32" viewBox="0 0 180 32">${LEAF}<text x="38" y="23" font-family="sans-serif" font-size="20" font-weight="bold" fill="#ffffff">Plant Store</text></svg>`;

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">${LEAF}</svg>`;

export const DOCS_TITLE = 'Plant Store API';

/** Options for @fastify/swagger-ui. */
export const docsBrand: Pick<FastifySwaggerUiOptions, 'logo' | 'theme'> = {
  logo: { type: 'image/svg+xml', content: Buffer.from(LOGO), href: '/docs', target: '_self' },
  theme: {
    title: DOCS_TITLE,
    favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(ICON) }],
  },
};
