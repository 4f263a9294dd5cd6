// The RateLimit-Policy and RateLimit header fields of draft-ietf-httpapi-ratelimit-headers-11 (section 3,
// RateLimit-Policy; section 4, RateLimit): Structured Field Lists (RFC 9651), here of one Item each, whose
// value is the policy's name as an SF String. openapi.yaml declares them (components/headers).
import type { FastifyReply } from 'fastify';

/** The two limits' policy names, as RateLimit-Policy and RateLimit name them. */
export type PolicyName = 'per-token' | 'auth-failures';

/** A policy's RateLimit-Policy value: its quota `q` (section 3.1.1) over a window of `w` seconds (3.1.3). */
export const policyField = (name: PolicyName, quota: number, windowSeconds: number): string => `"${name}";q=${quota};w=${windowSeconds}`;

/**
 * Writes both fields: the policy, and what is left of it, `r` (section 4.1.1), until the window ends in
 * `t` seconds (4.1.2). `policy` is policyField's value, made once per limit, not per request.
 */
export function writeLimitFields(reply: FastifyReply, name: PolicyName, policy: string, remaining: number, resetSeconds: number): void {
  reply.header('ratelimit-policy', policy);
  reply.header('ratelimit', `"${name}";r=${remaining};t=${resetSeconds}`);
}
