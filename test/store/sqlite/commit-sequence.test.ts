// The commit sequence on three real connections of one file: the writer's (its hooks called as group
// commit calls them), the reader's (which caches) and someone else's. The reader must trust only counts
// that every change up to was the writer's.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { CommitSequence, OwnCommits, readChangeCount, sharedCommitSequence } from '../../../src/store/sqlite/commit-sequence.js';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { tempDir } from '../../helpers/app.js';

function setup(t: Parameters<typeof tempDir>[0]) {
  const path = join(tempDir(t), 'plants.db');
  const reader = openDatabase(path);
  const writer = new Database(path);
  const other = new Database(path);
  t.teardown(() => [other, writer, reader].forEach((db) => db.close()));
  const count = readChangeCount(reader);
  const memory = sharedCommitSequence(count());
  const sequence = new CommitSequence(writer, memory);
  const own = new OwnCommits(memory);
  let id = 0;
  const writerInsert = writer.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, 'w')");
  const otherInsert = other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, 'o')");
  /** One transaction of the writer's, of `rows` inserts; `commit` false rolls it back as a failed batch would. */
  const write = (rows: number, commit = true) => {
    writer.exec('BEGIN IMMEDIATE');
    sequence.begun();
    for (let i = 0; i < rows; i++) writerInsert.run(id++);
    sequence.committing();
    if (commit) {
      writer.exec('COMMIT');
      sequence.committed();
    } else {
      sequence.failed();
      writer.exec('ROLLBACK');
    }
  };
  const elsewhere = (rows: number) => other.transaction(() => {
    for (let i = 0; i < rows; i++) otherInsert.run(id++);
  })();
  return { count, own, write, elsewhere, other };
}

t.test("the writer's commits, one or several since the last look, are its own", async (t) => {
  const { count, own, write } = setup(t);
  const seen = count();
  write(3);
  t.ok(own.only(seen, count()), 'one commit of three rows');
  const next = count();
  write(1);
  write(2);
  t.ok(own.only(next, count()), 'two commits since the last look');
});

t.test("anyone else's commit is not, before, after or between the writer's", async (t) => {
  const { count, own, write, elsewhere } = setup(t);
  let seen = count();
  elsewhere(1);
  t.notOk(own.only(seen, count()), 'only another connection committed');
  seen = count();
  write(2);
  elsewhere(1);
  t.notOk(own.only(seen, count()), "another connection committed after the writer's commit");
  seen = count();
  elsewhere(1);
  write(2);
  t.notOk(own.only(seen, count()), "another connection committed before the writer's commit");
  seen = count();
  write(1);
  t.ok(own.only(seen, count()), 'once seen, an earlier foreign commit no longer counts');
});

t.test("a count the writer published and rolled back is not trusted, even when someone else's commit reaches it", async (t) => {
  const { count, own, write, elsewhere } = setup(t);
  const seen = count();
  write(2, false);
  t.equal(count(), seen, 'nothing was kept');
  elsewhere(2); // reaches exactly the count the writer had published
  t.notOk(own.only(seen, count()));
  const after = count();
  write(1);
  t.ok(own.only(after, count()), 'the next commit of the writer is its own again');
});

t.test('every row change to plants and tokens moves the count, whoever makes it', async (t) => {
  const { count, other } = setup(t);
  const before = count();
  other.exec("INSERT INTO plants (owner, id, name) VALUES ('bob', 1, 'a'), ('bob', 2, 'b')");
  other.exec("UPDATE plants SET name = 'c' WHERE owner = 'bob'");
  other.exec("DELETE FROM plants WHERE owner = 'bob' AND id = 1");
  other.exec("INSERT INTO tokens (user, hash, created_at) VALUES ('bob', x'00', 'now')");
  other.exec("UPDATE tokens SET revoked_at = 'now'");
  other.exec('DELETE FROM tokens');
  t.equal(count() - before, 8n);
});
