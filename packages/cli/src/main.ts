import { Command, Option } from 'commander';
import { explain } from './exit';

/**
 * `zero`: Zero's command line. Each command's module is loaded when the
 * command runs, so `zero --help` and a one-shot question start fast.
 */
const program = new Command('zero')
  .description("Zero's command line: chat with agents, follow sessions, manage keys and projects")
  .version('0.1.0')
  .option('--profile <name>', 'the deployment profile of ~/.config/zero/config.json (default: its current one, or $ZERO_PROFILE)')
  .showHelpAfterError();

// Piped into a reader that leaves early (`zero … | head -1`): the rest has nowhere to go, which is not a failure.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

/** Runs a command and exits with its code; a failure is one line on stderr. */
const action =
  <A extends unknown[]>(run: (...args: A) => Promise<number | void>) =>
  async (...args: A) => {
    try {
      process.exitCode = (await run(...args)) ?? 0;
    } catch (error) {
      const { message, exitCode } = explain(error, process.env.ZERO_URL);
      process.stderr.write(`zero: ${message}\n`);
      process.exitCode = exitCode;
    }
  };

const profile = () => program.opts<{ profile?: string }>().profile;

// The default command, so `zero -p "…"`, `zero -q "…"`, `echo … | zero` and `zero` alone (the REPL) work as `claude` does.
program
  .command('agent', { isDefault: true })
  .description('chat (the default command): the REPL, or one message with -p/-q or stdin (then exit)')
  .argument('[project]', 'the project to bind the session to, owner/repo')
  .option('-p, --print [message]', 'send this message (or stdin) and exit, as claude -p does')
  .option('-q, --query <message>', 'send this message and exit (stdin, if piped, is appended)')
  .option('-a, --agent <id>', 'the agent to talk to')
  .addOption(new Option('-v, --voice <mode>', 'how the agent speaks: its <!-- VOICE:mode --> section of the agent file').choices(['full', 'minimal', 'neutral']))
  .option('-s, --session <id>', 'continue this session')
  .option('--no-stream', 'print the answer once it is complete instead of as it is written')
  .option('--json', 'print one JSON object at the end: text, tool calls, usage, session id, status')
  .option('--jsonl', 'print every event as one JSON line as it arrives')
  .action(
    action(
      async (
        project: string | undefined,
        options: { print?: string | true; query?: string; agent?: string; voice?: string; session?: string; stream: boolean; json?: boolean; jsonl?: boolean },
      ) => {
        const { agentCommand } = await import('./commands/agent');
        const { query, ...rest } = options;
        return agentCommand(project, { ...rest, q: query, profile: profile() });
      },
    ),
  );

program
  .command('run')
  .description('run a plan file (YAML, JSON or Markdown with ## Goal / ## Context / ## Steps) and exit')
  .requiredOption('--plan <file>', 'the plan file')
  .argument('[project]', 'the project, owner/repo (overrides the plan\'s)')
  .option('-a, --agent <id>', 'the agent to run it (overrides the plan\'s)')
  .option('--json', 'print one JSON object at the end')
  .option('--jsonl', 'print every event as one JSON line')
  .action(
    action(async (project: string | undefined, options: { plan: string; agent?: string; json?: boolean; jsonl?: boolean }) => {
      const { runPlanCommand } = await import('./commands/run-plan');
      return runPlanCommand(project, { ...options, profile: profile() });
    }),
  );

const evalCommand = program.command('eval').description('evals: datasets of cases, runs against variants, a gate for CI');
evalCommand
  .command('push')
  .description('store a new version of a dataset from a YAML, JSON or JSONL file of cases')
  .argument('<name>', 'the dataset')
  .argument('<file>', 'the file')
  .action(
    action(async (name: string, file: string) => {
      const { pushDataset } = await import('./commands/eval');
      return pushDataset(profile(), name, file);
    }),
  );
evalCommand
  .command('run')
  .description('run a dataset against variants and print the report; exits 9 when a variant is worse than the baseline beyond --threshold')
  .argument('<dataset>', 'the dataset')
  .option('--variant <spec>', 'name[:agent=…,model=…,complexity=F1…F5,thinking=N,max_iterations=N,prefix=…,system=…,append_system=…] (repeat for each variant)', (v: string, all: string[]) => [...all, v], [] as string[])
  .option('--baseline <name>', 'the variant the others are compared with (default: the first)')
  .option('--version <n>', "the dataset's version (default: its latest)")
  .option('--threshold <x>', 'how much lower (0 to 1) a mean score or pass rate may be than the baseline\'s', '0.05')
  .option('--concurrency <n>', 'cases run at once')
  .option('--max-cost <usd>', "each case's session budget in dollars")
  .option('--github-check <owner/repo@sha>', 'put the report on that commit as a GitHub check run, failing when the gate fails')
  .addOption(new Option('--format <format>', 'the report').choices(['markdown', 'json']).default('markdown'))
  .option('--out <file>', 'write the report there instead of stdout')
  .action(
    action(async (dataset: string, options: import('./commands/eval').EvalRunOptions) => {
      const { runEval } = await import('./commands/eval');
      if (!options.variant.length) options.variant = ['default'];
      return runEval(profile(), dataset, options);
    }),
  );

program
  .command('login')
  .description('store a deployment\'s URL and key (the key in the system keyring, else in ~/.config/zero/config.json or $ZERO_CONFIG, mode 0600)')
  .option('--url <url>', 'the deployment, e.g. https://zero.example.com or http://127.0.0.1:8787')
  .option('--key <key>', 'an API key (asked for when omitted)')
  .action(
    action(async (options: { url?: string; key?: string }) => {
      const { loginCommand } = await import('./commands/login');
      return loginCommand({ ...options, profile: profile() });
    }),
  );

const sessions = program.command('sessions').description('your sessions: list, show, watch, share');
sessions
  .command('list', { isDefault: true })
  .description('your sessions, newest first')
  .option('-n, --limit <n>', 'how many', '20')
  .option('--json', 'as JSON')
  .action(action(async (options: { limit: string; json?: boolean }) => (await import('./commands/sessions')).listSessions(profile(), options)));
sessions
  .command('show')
  .argument('<id>')
  .description("a session's settings, members and history")
  .option('--json', 'as JSON')
  .action(action(async (id: string, options: { json?: boolean }) => (await import('./commands/sessions')).showSession(profile(), id, options)));
sessions
  .command('watch')
  .argument('<id>')
  .description('follow a session live (Ctrl+C to stop)')
  .option('--jsonl', 'every event as one JSON line')
  .action(action(async (id: string, options: { jsonl?: boolean }) => (await import('./commands/sessions')).watchSession(profile(), id, options)));
sessions
  .command('share')
  .argument('<id>')
  .argument('<user>', 'the user id to add')
  .addOption(new Option('--role <role>', 'their role').choices(['viewer', 'editor', 'owner']).default('viewer'))
  .option('--name <name>', 'their display name')
  .description('add a member to a session')
  .action(
    action(async (id: string, user: string, options: { role: 'viewer' | 'editor' | 'owner'; name?: string }) =>
      (await import('./commands/sessions')).shareSession(profile(), id, user, options),
    ),
  );

const projects = program.command('projects').description('projects: list, push');
projects
  .command('list', { isDefault: true })
  .description('the projects you can see')
  .action(action(async () => (await import('./commands/projects')).listProjects(profile())));
projects
  .command('push')
  .argument('<dir>', 'the folder to upload (.gitignore is respected)')
  .argument('[project]', 'owner/repo (default: the folder\'s parent and name)')
  .description("replace a project's files with a folder's")
  .action(action(async (dir: string, project: string | undefined) => (await import('./commands/projects')).pushProject(profile(), dir, project)));

program
  .command('agents')
  .description('the agent catalog, with files that could not be loaded')
  .option('--json', 'as JSON')
  .action(action(async (options: { json?: boolean }) => (await import('./commands/agents')).listAgents(profile(), options)));

const keys = program.command('keys').description('API keys: create, list, revoke');
keys
  .command('list', { isDefault: true })
  .option('--user <id>', "another user's (administrators)")
  .action(action(async (options: { user?: string }) => (await import('./commands/keys')).listKeys(profile(), options)));
keys
  .command('create')
  .option('--user <id>', 'for another user (administrators)')
  .option('--name <name>', "the user's display name")
  .option('--label <label>', 'what the key is for')
  .action(action(async (options: { user?: string; name?: string; label?: string }) => (await import('./commands/keys')).createKey(profile(), options)));
keys
  .command('revoke')
  .argument('<key_id>')
  .option('--user <id>', "another user's (administrators)")
  .action(action(async (keyId: string, options: { user?: string }) => (await import('./commands/keys')).revokeKey(profile(), keyId, options)));

program
  .command('worker')
  .description("serve a self-hosted environment: run its sessions' tool calls (bash, read, write, edit, glob, grep) in a folder on this machine")
  .requiredOption('-e, --environment <id>', 'the self-hosted environment (env_…)')
  .option('-d, --dir <folder>', 'the folder the tools work in', '.')
  .option('--lease-seconds <n>', 'the lease each heartbeat asks for: a call whose worker misses it fails', '30')
  .option('--once', 'serve one call, then exit')
  .action(
    action(async (options: { environment: string; dir: string; leaseSeconds: string; once?: boolean }) => (await import('./commands/worker')).workerCommand(profile(), options)),
  );

for (const decision of ['approve', 'deny'] as const) {
  program
    .command(decision)
    .argument('<session>')
    .argument('<call>', 'the waiting tool call id')
    .option('-m, --message <text>', decision === 'deny' ? 'why (the model reads it)' : 'a note')
    .option('--always', 'approve: allow this tool for the rest of the session')
    .description(decision === 'approve' ? 'allow a tool call that waits for approval' : 'deny a tool call that waits for approval')
    .action(
      action(async (session: string, call: string, options: { message?: string; always?: boolean }) =>
        (await import('./commands/approve')).decide(profile(), session, call, decision === 'deny' ? 'deny' : options.always ? 'always' : 'allow', options.message),
      ),
    );
}

await program.parseAsync(process.argv);
