// Imported first by every entry point: on an unsupported Node, one line and exit 1 before any
// other module (better-sqlite3 above all) is evaluated.
import { unsupportedNodeMessage } from './supported-node.js';

const message = unsupportedNodeMessage(process.version);
if (message !== undefined) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
