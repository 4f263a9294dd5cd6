// The major-version rule: a contract with breaking changes must carry a new major info.version.

export interface VersionVerdict {
  /** Breaking changes are allowed because the major version went up. */
  allowsBreaking: boolean;
  message: string;
}

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/;

export function versionRule(before: unknown, after: unknown, breaking: number): VersionVerdict {
  const was = SEMVER.exec(String(before));
  const is = SEMVER.exec(String(after));
  const versions = `info.version ${String(before)} -> ${String(after)}`;
  if (was === null || is === null)
    return {
      allowsBreaking: false,
      message: `${versions}: not both semantic versions (MAJOR.MINOR.PATCH), so no breaking change can be allowed`,
    };
  const newMajor = Number(is[1]) > Number(was[1]);
  if (breaking === 0)
    return { allowsBreaking: true, message: `${versions}: no breaking change${newMajor ? ' (a new major without one is allowed)' : ''}` };
  if (newMajor)
    return { allowsBreaking: true, message: `${versions}: a new major version, so the ${breaking} breaking change(s) are allowed` };
  return {
    allowsBreaking: false,
    message: `${versions}: ${breaking} breaking change(s) need a new major info.version (${Number(was[1]) + 1}.0.0), or undo them`,
  };
}
