#!/usr/bin/env node
// `plant-store-conformance`: the conformance run as a command (README.md says what it checks and changes).
import { conformanceCommand } from './command.js';

process.exitCode = await conformanceCommand(process.argv.slice(2));
