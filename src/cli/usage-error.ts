// A mistake on the command line: the `plant-store` command prints it with the usage and exits 2.
export class UsageError extends Error {}
