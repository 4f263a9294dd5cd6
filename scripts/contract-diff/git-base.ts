// Which contract to compare with: openapi.yaml at a git ref, by default at the last commit that
// changed info.version (the last release), found from history alone so a clone without tags works.
import { execFileSync } from 'node:child_process';
import { parse } from 'yaml';
import type { JsonObject } from './changes.js';

const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });

/** openapi.yaml (relative to `cwd`) as it is at `ref`, or undefined where that commit has none. */
export function contractAt(cwd: string, ref: string, file = 'openapi.yaml'): JsonObject | undefined {
  let text: string;
  try {
    text = git(cwd, ['show', `${ref}:./${file}`]);
  } catch {
    return undefined;
  }
  return parse(text) as JsonObject;
}

const versionOf = (contract: JsonObject | undefined) => (contract?.info as { version?: unknown } | undefined)?.version;

export interface Release {
  commit: string;
  version: unknown;
}

/** The newest commit (first-parent history of HEAD) whose openapi.yaml has another info.version than its parent's. */
export function lastRelease(cwd: string, file = 'openapi.yaml'): Release {
  const commits = git(cwd, ['log', '--first-parent', '--format=%H', 'HEAD', '--', file]).split('\n').filter(Boolean);
  for (const commit of commits) {
    const version = versionOf(contractAt(cwd, commit, file));
    const parent = versionOf(contractAt(cwd, `${commit}^`, file));
    // In a shallow clone the oldest commit has no parent here; that says nothing about its version.
    if (parent === undefined && git(cwd, ['rev-parse', '--is-shallow-repository']).trim() === 'true') break;
    if (version !== parent) return { commit, version };
  }
  if (git(cwd, ['rev-parse', '--is-shallow-repository']).trim() === 'true') {
    throw new Error(
      'this is a shallow clone, and its history does not reach the last change of info.version: fetch the whole history (actions/checkout with fetch-depth: 0, GitLab GIT_DEPTH: 0), or pass --base <ref>',
    );
  }
  throw new Error(`no commit changes info.version of ${file}; pass --base <ref>`);
}
