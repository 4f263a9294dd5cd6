// Versioned schema changes for PostgreSQL, applied in order; the schema_migrations table records each one applied.
// Never edit a released migration: add a new one, so existing databases upgrade in place.

export const migrations: readonly string[] = [
  // 1: plants, keyed by owner and their 64-bit id; the key covers the list query.
  // COLLATE "C": owners are compared byte for byte, whatever the database's locale.
  `CREATE TABLE plants (
     owner TEXT COLLATE "C" NOT NULL,
     id BIGINT NOT NULL,
     name TEXT NOT NULL,
     tag TEXT,
     PRIMARY KEY (owner, id)
   )`,
  // 2: bearer tokens, stored only as SHA-256 hashes. ("user" is a reserved word in PostgreSQL.)
  `CREATE TABLE tokens (
     id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     user_name TEXT NOT NULL,
     hash BYTEA NOT NULL UNIQUE,
     created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
     revoked_at TIMESTAMPTZ
   )`,
  // 3: tokens that expire, and each token's last use. Existing tokens keep working: no expiry, no use yet.
  // Nullable columns without a default: PostgreSQL adds them without rewriting the table.
  `ALTER TABLE tokens ADD COLUMN expires_at TIMESTAMPTZ, ADD COLUMN last_used_at TIMESTAMPTZ`,
  // 4: every change to a token that can change who it authenticates notifies, in the changing
  // transaction, the instances that cache tokens: any process that changes a token, the CLI included,
  // notifies. last_used_at is left out: it changes often and decides nothing. Nothing of this version
  // listens any more (token-cache.ts keeps an owner under a second instead); the trigger stays, as
  // migrations are history and, during a rolling upgrade, older instances still listen for it.
  `CREATE FUNCTION plant_store_token_changed() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'TRUNCATE' THEN
       PERFORM pg_notify('plant_store_tokens', '*');
       RETURN NULL;
     END IF;
     IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('plant_store_tokens', encode(OLD.hash, 'base64')); END IF;
     IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('plant_store_tokens', encode(NEW.hash, 'base64')); END IF;
     RETURN NULL;
   END $$;
   CREATE TRIGGER tokens_changed AFTER INSERT OR DELETE OR UPDATE OF user_name, hash, expires_at, revoked_at ON tokens
     FOR EACH ROW EXECUTE FUNCTION plant_store_token_changed();
   CREATE TRIGGER tokens_truncated AFTER TRUNCATE ON tokens
     FOR EACH STATEMENT EXECUTE FUNCTION plant_store_token_changed();`,
];
