// Versioned schema changes, applied in order; PRAGMA user_version records the last one applied.
// Never edit a released migration: add a new one, so older database files upgrade in place.

export const migrations: readonly string[] = [
  // 1: plants, keyed by owner and their 64-bit id; the key covers the list query.
  `CREATE TABLE plants (
     owner TEXT NOT NULL,
     id INTEGER NOT NULL,
     name TEXT NOT NULL,
     tag TEXT,
     PRIMARY KEY (owner, id)
   ) STRICT, WITHOUT ROWID`,
  // 2: bearer tokens, stored only as SHA-256 hashes.
  `CREATE TABLE tokens (
     id INTEGER PRIMARY KEY,
     user TEXT NOT NULL,
     hash BLOB NOT NULL UNIQUE,
     created_at TEXT NOT NULL,
     revoked_at TEXT
   ) STRICT`,
  // 3: tokens that expire, and each token's last use. Existing tokens keep working: no expiry, no use yet.
  `ALTER TABLE tokens ADD COLUMN expires_at TEXT;
   ALTER TABLE tokens ADD COLUMN last_used_at TEXT`,
];
