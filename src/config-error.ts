// A setting that stops start-up: the process prints the message, which names the variable, and exits 1.
export class ConfigError extends Error {}
