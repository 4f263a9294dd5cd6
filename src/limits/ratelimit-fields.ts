// The RateLimit-Policy and RateLimit header fields of draft-ietf-httpapi-ratelimit-headers-11 (section 3,
// RateLimit-Policy; section 4, RateLimit): Structured Field Lists (RFC 9651), here of one Item each, whose
// value is the policy's name as an SF String. openapi.yaml declares them (components/headers).
import type { FastifyReply } from 'fastify';

/**
 * The writer of one limit's two fields: its policy, quota `q` (section 3.1.1) over `w` seconds (3.1.3), made once; and
 * what is left of it, `r` (4.1.1), until the window ends in `t` seconds (4.1.2).
 */
export function limitFields(name: 'per-token' | 'auth-failures', quota: number, windowSeconds: number) {
  const policy = `"${name}";q=${quota};w=${windowSeconds}`;
  return (reply: FastifyReply, remaining: number, resetSeconds: number): void => {
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', `"${name}";r=${remaining};t=${resetSeconds}`);
  };
}
