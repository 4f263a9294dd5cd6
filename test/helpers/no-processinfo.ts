// Loaded into every test process (package.json's tap "node-arg"): the processes a test starts do not load tap's
// processinfo hook, which tap hands each of them in NODE_OPTIONS. It records the files a process loads, for tap's own
// coverage and --changed, neither used here (c8 measures coverage, through NODE_V8_COVERAGE), and it cost each started
// server about 0.4 s of CPU and each command about 0.1 s (/usr/bin/time, Node 24), in every leg. process-on-spawn is
// the library processinfo adds its NODE_OPTIONS through; a listener added after its own runs after it.
import processOnSpawn from 'process-on-spawn';

const processinfo = /"?--(?:import|loader)[= ]\S*@tapjs[/\\]processinfo[^\s"]*"?/g;

processOnSpawn.addListener((spawned) => {
  const options = spawned.env.NODE_OPTIONS;
  const rest = options?.replace(processinfo, '').trim();
  if (rest === undefined || rest === options) return;
  const env = { ...spawned.env };
  if (rest === '') delete env.NODE_OPTIONS;
  else env.NODE_OPTIONS = rest;
  spawned.env = env;
});
