#!/usr/bin/env node
// Kept in git, not built: npm links a package's bin when it installs it, and in a fresh checkout that
// is before `npm run build` writes dist/ (a bin pointing into dist/ would not be linked at all).
import '../dist/mock/bin.js';
