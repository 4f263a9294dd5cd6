// JSON text made ahead of the reply (a cached page, the served contract): typed by what it is the JSON of,
// so a handler may send it only where the contract's answer is that value.
declare const jsonOf: unique symbol;

/** A string holding the JSON of a `T`; only `jsonText` (or a writer that documents the same guarantee) makes one. */
export type JsonText<T> = string & { readonly [jsonOf]: T };

/** `JSON.stringify(value)`, typed as the JSON of what it was given. */
export const jsonText = <T>(value: T): JsonText<T> => JSON.stringify(value) as JsonText<T>;
