// The README's start command, `npm start`, really builds and starts the service on its SQLite default.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import t from 'tap';
import { tempDir } from './helpers/app.js';
import { projectRoot } from './helpers/paths.js';
import { freePort } from './helpers/process.js';

t.test('npm start builds, starts on SQLite, prints a bootstrap token and stops on Ctrl-C', async (t) => {
  const port = await freePort();
  const cwd = tempDir(t);
  const child = spawn('npm', ['start', '--prefix', projectRoot, '--silent'], {
    cwd,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', DATABASE_PATH: `${cwd}/data/plants.db` },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, like a terminal's foreground job
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const exited = new Promise<string>((resolve) => child.on('close', (code, signal) => resolve(`${code ?? signal}`)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  });

  let ready = false;
  for (const started = Date.now(); !ready && Date.now() - started < 60_000; await new Promise((resolve) => setTimeout(resolve, 200))) {
    ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
  }
  t.ok(ready, '/readyz answers 200', { stderr });
  const token = /pst_[A-Za-z0-9_-]{43}/.exec(stderr)?.[0];
  t.ok(token, 'a bootstrap token was printed');
  const plants = await fetch(`http://127.0.0.1:${port}/plants`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(plants.status, 200, 'and it works');
  // Ctrl-C in a terminal sends SIGINT to the whole foreground process group.
  process.kill(-child.pid!, 'SIGINT');
  // npm itself ends by the signal, as it does on Ctrl-C; the server under it shuts down cleanly:
  // it stops listening and closes the database, which removes SQLite's -wal file.
  t.ok(['0', 'SIGINT'].includes(await exited), 'npm ends');
  let closed = false;
  for (const started = Date.now(); !closed && Date.now() - started < 10_000; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const listening = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => true,
      () => false,
    );
    closed = !listening && !existsSync(`${cwd}/data/plants.db-wal`);
  }
  t.ok(closed, 'the server stopped listening and closed its database within 10 seconds');
});
