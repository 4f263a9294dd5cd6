// What the breaking-change gate reports: one change, in one operation, at one JSON pointer of openapi.yaml.
import { followRef } from '../../clients/conformance/src/openapi-ref.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type Severity = 'breaking' | 'non-breaking';

export interface Change {
  severity: Severity;
  /** `POST /plants`, or `(document)` for changes outside any operation. */
  operation: string;
  /** RFC 6901 pointer into the new openapi.yaml (the old one for removals), where the change is written. */
  pointer: string;
  message: string;
  /** A breaking removal the base announced: the rule that allows it (retirement.ts), said in a few words. */
  allowedBy?: string;
}

/** The project's $ref resolver (clients/conformance/src/openapi-ref.ts), typed as the gate reads documents: JSON values. */
export const follow = (document: JsonObject, node: Json | undefined, pointer: string) =>
  followRef(document, node, pointer) as { node: Json | undefined; pointer: string };

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value if it is an object, else an empty one: an absent or malformed member reads as empty. */
export const object = (value: Json | undefined): JsonObject => (isObject(value) ? value : {});

/** The value if it is an array, else an empty one. */
export const list = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);

/** A JSON value as text for a message: strings as they are, anything else as JSON. */
export const text = (value: Json | undefined): string => (typeof value === 'string' ? value : JSON.stringify(value));

export const pointerTo = (...segments: (string | number)[]) =>
  segments.map((segment) => '/' + String(segment).replace(/~/g, '~0').replace(/\//g, '~1')).join('');

/** The two documents compared, the operation under comparison and where its changes go. */
export interface Sides {
  before: JsonObject;
  after: JsonObject;
  operation: string;
  changes: Changes;
  /** Today, for the sunset rule (retirement.ts). */
  now: Date;
}

/** Collects changes for one operation; the same change reached twice (a shared component) is kept once. */
export class Changes {
  readonly list: Change[] = [];
  readonly #seen = new Set<string>();

  add(severity: Severity, operation: string, pointer: string, message: string, allowedBy?: string): void {
    const key = `${severity} ${operation} ${pointer} ${message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.list.push({ severity, operation, pointer, message, ...(allowedBy === undefined ? {} : { allowedBy }) });
  }
}
