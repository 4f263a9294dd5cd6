// A damaged SQLite file stops the start with a message naming the file, what is wrong and how to
// recover (garbage, a bad header, a truncated file, damaged pages); `plant-store check` reads it all.
import { closeSync, existsSync, openSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { tempDir } from '../helpers/app.js';
import { cliCommand, runCli, type Finished } from '../helpers/process.js';
import { projectRoot } from '../helpers/paths.js';
import { spawn } from 'node:child_process';

type T = Parameters<typeof tempDir>[0];

/**
 * `plant-store serve`, killed if still running after `limitMs`: a start that does not refuse the file
 * would otherwise serve for ever. It refuses within a second or two; the limit is far past that.
 */
function serveOnce(env: Record<string, string>, limitMs = 60_000): Promise<Finished & { killed: boolean }> {
  const [command, args] = cliCommand(['serve']);
  const child = spawn(command, args, { cwd: projectRoot, env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, limitMs);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, killed });
    }),
  );
}

/** A healthy file as the service leaves it: a token, 396 plants (the count), the WAL checkpointed. */
async function healthyFile(t: T): Promise<string> {
  const path = join(tempDir(t), 'plants.db');
  t.equal((await runCli(['token', 'create', 'alice'], { DATABASE_PATH: path, DATABASE_URL: '' })).code, 0);
  const db = new Database(path);
  const insert = db.prepare("INSERT INTO plants (owner, id, name, tag) VALUES ('alice', ?, ?, 'tag')");
  db.transaction(() => {
    for (let id = 1; id <= 396; id++) insert.run(id, `plant ${id} ${'x'.repeat(100)}`);
  })();
  db.close(); // the last connection: the WAL is checkpointed into the file and removed
  return path;
}

const pageSize = (path: string) => readFileSync(path).readUInt16BE(16);

/** Overwrites `bytes` at `offset` of the file. */
function overwrite(path: string, offset: number, bytes: Buffer): void {
  const fd = openSync(path, 'r+');
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
}

const damages: Record<string, { damage: (path: string) => void; problem: RegExp }> = {
  'garbage instead of a database': {
    damage: (path) => writeFileSync(path, 'this is not a database, only text\n'.repeat(200)),
    problem: /file is not a database/,
  },
  'a bad header': { damage: (path) => overwrite(path, 0, Buffer.from('NOT SQLITE AT ALL')), problem: /file is not a database/ },
  'a truncated file': {
    damage: (path) => truncateSync(path, Math.floor(statSync(path).size / pageSize(path) / 2) * pageSize(path)),
    problem: /malformed|missing from overflow list|never used|Page \d+/,
  },
  'damaged pages': {
    // The last page of the file, a b-tree page in use, overwritten with noise.
    damage: (path) => overwrite(path, statSync(path).size - pageSize(path), Buffer.alloc(pageSize(path), 0xab)),
    problem: /malformed|btreeInitPage|Page \d+|Tree \d+/,
  },
};

for (const [name, { damage, problem }] of Object.entries(damages)) {
  t.test(`${name}: the start stops, naming the file, what is wrong and how to recover; check says the same`, async (t) => {
    const path = await healthyFile(t);
    damage(path);
    const env = { DATABASE_PATH: path, DATABASE_URL: '', BOOTSTRAP_TOKEN: 'off' };
    const started = await serveOnce(env);
    t.notOk(started.killed, 'the start stopped by itself: it did not serve the damaged file');
    t.equal(started.code, 1, 'exit code 1');
    t.match(started.stderr, `the SQLite database ${path} is damaged`, `names the file: ${started.stderr.trim()}`);
    t.match(started.stderr, problem, 'says what is wrong');
    t.match(started.stderr, /backup/, 'says to restore a backup');
    t.match(started.stderr, `sqlite3 ${path} .recover`, "or to save what is readable with sqlite3's .recover");
    t.match(started.stderr, /DATABASE_PATH/, 'and names the setting');
    t.notMatch(started.stderr, /pst_|token/i, 'nothing about a token');

    const checked = await runCli(['check'], env);
    t.equal(checked.code, 1, 'check: exit code 1');
    t.match(checked.stdout, problem, `check lists the problems: ${checked.stdout.trim().slice(0, 200)}`);
    t.match(checked.stderr, `the SQLite database ${path} is damaged`);
  });
}

t.test('a damaged file in rollback-journal mode (as .recover or other tools leave one) is refused unchanged', async (t) => {
  const path = await healthyFile(t);
  const db = new Database(path);
  db.pragma('journal_mode = DELETE');
  db.close();
  overwrite(path, statSync(path).size - pageSize(path), Buffer.alloc(pageSize(path), 0xab));
  const before = readFileSync(path);
  const started = await serveOnce({ DATABASE_PATH: path, DATABASE_URL: '', BOOTSTRAP_TOKEN: 'off' });
  t.equal(started.code, 1, 'refused');
  t.match(started.stderr, `the SQLite database ${path} is damaged`);
  t.ok(readFileSync(path).equals(before), 'not one byte of it changed (switching it to WAL writes its header)');
  t.notOk(existsSync(`${path}-wal`), 'and no WAL was made beside it');
});

t.test('check on a healthy file says ok, exit 0', async (t) => {
  const path = await healthyFile(t);
  const checked = await runCli(['check'], { DATABASE_PATH: path, DATABASE_URL: '' });
  t.equal(checked.code, 0);
  t.equal(checked.stdout, 'ok\n');
  t.match(checked.stderr, `checking the SQLite file ${path}`);
  const missing = await runCli(['check'], { DATABASE_PATH: join(tempDir(t), 'none.db'), DATABASE_URL: '' });
  t.equal(missing.code, 1);
  t.match(missing.stderr, /there is no SQLite database at .*none\.db \(DATABASE_PATH\)/);
  const folder = await runCli(['check'], { DATABASE_PATH: tempDir(t), DATABASE_URL: '' });
  t.equal(folder.code, 1);
  t.match(folder.stderr, /\(DATABASE_PATH\) is not a file: DATABASE_PATH names the SQLite file itself/, 'a folder, not "disk I/O error"');
});
