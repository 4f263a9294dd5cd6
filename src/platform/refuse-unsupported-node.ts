// Imported first by every entry point: on an unsupported Node, one line and exit 1 before any other module
// (better-sqlite3 above all) is evaluated. No imports here: this must run on any Node.

/** better-sqlite3 13 (Node-API) needs 22.14: below it the process can crash. */
const MINIMUM_NODE = { major: 22, minor: 14 };

/** The one line to print when `version` (as process.version gives it) is too old, else undefined. */
export function unsupportedNodeMessage(version: string): string | undefined {
  const match = /^v(\d+)\.(\d+)\./.exec(version);
  const major = Number(match?.[1] ?? 0);
  const minor = Number(match?.[2] ?? 0);
  if (major > MINIMUM_NODE.major || (major === MINIMUM_NODE.major && minor >= MINIMUM_NODE.minor)) return undefined;
  return `plant-store needs Node ${MINIMUM_NODE.major}.${MINIMUM_NODE.minor} or newer (22.14+, 24 or 26), but this is Node ${version}; see "Node versions" in docs/deploy.md`;
}

const message = unsupportedNodeMessage(process.version);
if (message !== undefined) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
