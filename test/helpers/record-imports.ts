// Loaded with --import into a `plant-store` process: on exit, writes every module URL it resolved to the file RECORD_IMPORTS names.
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';

const resolved = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    resolved.add(result.url);
    return result;
  },
});
process.on('exit', () => writeFileSync(process.env.RECORD_IMPORTS!, [...resolved].join('\n')));
