/*
 * cli_table — every command and every option of whittle, whittle-coordinator
 * and whittle-node. The parser (cli.c), `--help`, the man pages and the bash
 * completion all come from these rows: an option that is not a row here does
 * not exist (tests/e2e/cli.sh fails on one listed anywhere else).
 *
 * Help text: sentences, no trailing newline; the argument name as in the row.
 */
#include "cli.h"

#define S_CLIENT                                                                         \
    (WH_CLI_REDUCE | WH_CLI_SUBMIT | WH_CLI_STATUS | WH_CLI_MUTATE | WH_CLI_WATCH | WH_CLI_CANCEL)
#define S_WHITTLE                                                                        \
    (WH_CLI_INSPECT | WH_CLI_REDUCE | WH_CLI_SUBMIT | WH_CLI_STATUS | WH_CLI_KEYGEN |    \
     WH_CLI_SUITE | WH_CLI_MUTATE | WH_CLI_GROUP | WH_CLI_HELP | WH_CLI_MAIN | WH_CLI_CACHE | \
     WH_CLI_REPORT | WH_CLI_WATCH | WH_CLI_CANCEL)

const wh_cli_cmd_t wh_cli_cmds[] = {
    {WH_CLI_MAIN, "whittle", NULL, "COMMAND [OPTION...]", 0, 0,
     "Reduces a failing C/C++ unit test to the statements that still make it fail. "
     "`whittle help COMMAND` explains a command and every option it takes."},
    {WH_CLI_INSPECT, "whittle", "inspect",
     "FILE (--test NAME | --list) [-p BUILD_DIR] [--json] [--allow-parse-errors] [-- FLAGS...]", 1, 1,
     "Prints the statement tree of one test function (or lists the test functions) of a test "
     "file, as libclang parses it."},
    {WH_CLI_REDUCE, "whittle", "reduce",
     "[--config FILE] [--project DIR] --file FILE --test NAME --run CMD [OPTION...] [-- FLAGS...]", 0, 1,
     "Reduces one failing test: removes statements (hierarchical delta debugging over the "
     "statement tree) while the test still fails the same way. Without --cluster it runs in "
     "this process with --jobs slot threads. Settings come from --config FILE, else from "
     "./whittle.json when it exists; flags override them."},
    {WH_CLI_SUBMIT, "whittle", "submit", "--cluster ENDPOINT [KEYS] FAILURES.json", 1, 0,
     "Sends every job of a JSON list (fields as the reduce flags, '-' spelled '_') to a "
     "coordinator and waits for their results."},
    {WH_CLI_STATUS, "whittle", "status", "--cluster ENDPOINT [KEYS]", 0, 0,
     "Prints a coordinator's nodes, slots, cache, journal and the jobs of this client key "
     "(resumed ones marked; other clients' jobs only counted)."},
    {WH_CLI_WATCH, "whittle", "watch", "--cluster ENDPOINT [KEYS] JOB_ID...", 64, 0,
     "Follows jobs by id to their results, as submit does: after a coordinator restart, or "
     "from another terminal. Only the key that submitted a job may watch it."},
    {WH_CLI_CANCEL, "whittle", "cancel", "--cluster ENDPOINT [KEYS] JOB_ID", 1, 0,
     "Cancels a job (its client ends with exit 130). Only the key that submitted it may."},
    {WH_CLI_KEYGEN, "whittle", "keygen", "--out PREFIX", 0, 0,
     "Writes a CURVE key pair: PREFIX.secret (mode 0600) and PREFIX.public."},
    {WH_CLI_SUITE, "whittle", "suite",
     "--kills KILLS.csv [--method ilp|diff|fast|all] [--potential] [--seed N] [--out suite.json]", 0, 0,
     "Reduces a test suite over a mutant kill matrix: the smallest set of tests that kills "
     "every killed mutant, by each method."},
    {WH_CLI_GROUP, "whittle", "group", "RUNS_DIR", 1, 0,
     "Groups the run folders under RUNS_DIR by root cause (fingerprint without the test "
     "name, then shared reduced statements)."},
    {WH_CLI_REPORT, "whittle", "report", "RUN_DIR", 1, 0,
     "Writes RUN_DIR/report.html again from the files of the run folder (summary.json, "
     "candidates.csv, judged.csv, tree.json, reduced.diff): one self-contained page. Every "
     "run writes its own; this remakes it, e.g. for a folder from an older whittle."},
    {WH_CLI_MUTATE, "whittle", "mutate",
     "--project DIR --source GLOB --tests-file FILE --run CMD --framework NAME [OPTION...]", 0, 0,
     "Seeds mutants into the sources matched by --source, runs every test of --tests-file "
     "against each and writes the kill matrix (kills.csv) to --out; with --reduce, reduces "
     "every kill."},
    {WH_CLI_CACHE, "whittle", "cache", "stats|clear|forget [--node KEYID] [--cache SPEC]", 1, 0,
     "Looks after the verdict cache, embedded or Redis (with its embedded fallback): stats "
     "prints what it holds (verdicts by kind, predictions, blobs, size, generation, lookups); "
     "clear removes everything; forget --node KEYID drops the verdicts one node produced. "
     "clear and forget bump the generation, so no embedded fallback brings back what they "
     "removed."},
    {WH_CLI_HELP, "whittle", "help", "[COMMAND]", 1, 0,
     "Explains a command and every option it takes."},
    {WH_CLI_COORD, "whittle-coordinator", NULL,
     "[--bind ENDPOINT] (--secret-key FILE --nodes DIR --clients DIR | --insecure) [OPTION...]", 0, 0,
     "The cluster's coordinator: binds a socket for node slots and clients, runs every "
     "submitted reduction on the shared pool of slots (fair across jobs) and answers status "
     "requests."},
    {WH_CLI_NODE, "whittle-node", NULL,
     "--connect ENDPOINT [--secret-key FILE --server-key FILE | --insecure] [OPTION...]", 0, 0,
     "A build node: --slots slot threads with warm workspaces that connect to a coordinator "
     "and build and run the candidates it sends."},
    {0, NULL, NULL, NULL, 0, 0, NULL},
};

const wh_cli_opt_t wh_cli_opts[] = {
    /* Every command. */
    {WH_CLI_ALL, "help", 'h', NULL, "Prints this help and exits."},
    {WH_CLI_ALL, "version", 0, NULL, "Prints the version and exits."},

    /* reduce */
    {WH_CLI_REDUCE, "config", 0, "FILE",
     "Reads the job from FILE (the fields of a submit entry) before the flags; default "
     "./whittle.json when it exists."},
    {WH_CLI_REDUCE | WH_CLI_MUTATE, "project", 0, "DIR",
     "The project folder. It is copied into workspaces and never written to. reduce: "
     "default the current folder (also for a --config or whittle.json without \"project\")."},
    {WH_CLI_REDUCE, "file", 0, "FILE", "The test file, relative to the project."},
    {WH_CLI_INSPECT | WH_CLI_REDUCE, "test", 0, "NAME",
     "The test function (or GoogleTest Suite.Name) to parse or reduce."},
    {WH_CLI_REDUCE | WH_CLI_MUTATE, "run", 0, "CMD",
     "The shell command that runs the test; {test} and {report} are replaced (see the "
     "framework presets)."},
    {WH_CLI_REDUCE | WH_CLI_MUTATE, "setup", 0, "CMD",
     "Run once per workspace before the first build (configure, first full build)."},
    {WH_CLI_REDUCE | WH_CLI_MUTATE, "build", 0, "CMD",
     "Run before every test run (an incremental build)."},
    {WH_CLI_REDUCE, "framework", 0, "NAME",
     "The test framework preset that judges a run (the frameworks listed below). Without it, "
     "chosen from the test file's includes (and said which)."},
    {WH_CLI_MUTATE, "framework", 0, "NAME",
     "The test framework preset that judges each run (the frameworks listed below)."},
    {WH_CLI_REDUCE, "algorithm", 0, "hdd|dd|linear",
     "hdd (default): hierarchical delta debugging over the statement tree; dd: classic ddmin "
     "over the top level, the flat baseline; linear: one unit at a time, top to bottom, per "
     "level, sweeps to a fixpoint (the thesis's gold standard)."},
    {WH_CLI_REDUCE, "ddmin", 0, "chunked|classic",
     "The ddmin walk inside a level: chunked (default) or classic."},
    {WH_CLI_REDUCE, "jobs", 'j', "N|auto",
     "Slots (parallel candidate builds) of the embedded run, 1 to 1024, or auto for one per "
     "online core. Default 1."},
    {WH_CLI_REDUCE, "out", 0, "DIR",
     "Where run folders go (default ./whittle-runs; standing in the project, which is never "
     "written to, $XDG_STATE_HOME/whittle/runs/NAME, ~/.local/state/whittle/runs/NAME by "
     "default, named on the console); DIR/latest links to the newest. With "
     "--cluster, a relative folder under the coordinator's --runs folder."},
    {WH_CLI_REDUCE, "keep-work", 0, NULL,
     "Keeps the workspaces of the embedded run (OUT/RUN/work: a copy of the project and its "
     "build per slot) when it ends; by default they are removed however the run ends "
     "(reduced, refused, failed or interrupted). Also $WHITTLE_KEEP_WORK."},
    {WH_CLI_REDUCE | WH_CLI_COORD, "cache", 0, "SPEC",
     "The verdict cache: empty for the embedded one (in $WHITTLE_CACHE_DIR, else "
     "~/.cache/whittle), a folder, or redis://[user[:password]@]HOST:PORT/DB."},
    {WH_CLI_REDUCE | WH_CLI_COORD, "cache-max", 0, "SIZE",
     "Compacts the embedded cache (a Redis cache's embedded fallback too) whenever its logs "
     "grow past SIZE (like 64M; K, M, G): rewritten atomically under its lock with the latest "
     "verdict per key. Default: never."},
    {WH_CLI_CACHE, "cache", 0, "SPEC",
     "The cache to look after, as reduce --cache takes it (default: the embedded one); a "
     "redis:// cache includes its embedded fallback."},
    {WH_CLI_REDUCE | WH_CLI_COORD | WH_CLI_CACHE, "cache-secret-file", 0, "FILE",
     "The cluster secret (at least 32 bytes; make one with head -c 32 /dev/urandom | base64): "
     "every value written to a redis:// cache or journal carries an HMAC-SHA-256 under it, and "
     "a value without a valid one is not believed (a miss, counted by cache stats). Needed "
     "with a redis:// cache; default $WHITTLE_CACHE_SECRET_FILE. Never the secret itself."},
    {WH_CLI_CACHE, "node", 0, "KEYID",
     "forget: the node whose verdicts go, by its key name (the base name of its public key "
     "file), or local (the embedded reduce and --insecure nodes)."},
    {WH_CLI_REDUCE, "match", 0, "full|message|type",
     "How much of the failure must stay the same: full (default: kind, message and location), "
     "message (no location) or type (the kind only)."},
    {WH_CLI_REDUCE, "build-timeout", 0, "S", "Seconds a --build may take (up to 604800)."},
    {WH_CLI_REDUCE, "test-timeout", 0, "S", "Seconds a --run may take (up to 604800)."},
    {WH_CLI_REDUCE, "setup-timeout", 0, "S", "Seconds a --setup may take (up to 604800)."},
    {WH_CLI_REDUCE, "failure-regex", 0, "RE",
     "console framework: a PCRE2 pattern with named groups test, file, line, message, kind that "
     "finds failures in the output."},
    {WH_CLI_REDUCE, "pass-regex", 0, "RE",
     "console framework: a pattern whose match means the test passed."},
    {WH_CLI_REDUCE, "message-continuation", 0, "RE",
     "console framework: lines matching RE after a failure continue its message."},
    {WH_CLI_REDUCE, "pass-on-exit0", 0, NULL,
     "plain and console frameworks: an exit 0 with no failure in the output is a pass."},
    {WH_CLI_REDUCE, "repeat", 0, "K",
     "Runs the original and each candidate K times (1 to 1000); a candidate is kept only when "
     "every run preserves the failure."},
    {WH_CLI_REDUCE, "flaky-ok", 0, "R",
     "With --repeat, accepts a candidate when R of the K runs (1 to 1000) preserve the failure."},
    {WH_CLI_REDUCE, "budget", 0, "builds=N|time=DURATION",
     "Stops the walk when it has spent N builds or DURATION (90s, 30m, 2h) since the job "
     "started, with its best answer so far: still verified afresh and fault-checked, claims "
     "not checked; exit status 6 and \"partial\" in its records. Both limits may be given "
     "(twice, or joined by a comma); with --from-ctest or --from-junit, per failing test."},
    {WH_CLI_REDUCE, "batch-budget", 0, "builds=N|time=DURATION",
     "With --from-ctest or --from-junit: a budget for the whole batch, as --budget's: the "
     "builds of every job (each first run counts one, each reduction its walk's builds) and "
     "the time since the batch began. When spent, the reductions running stop with their "
     "best answers so far (verified afresh, partial), those not started are skipped "
     "(\"skipped: batch budget spent\"); exit status 6. Groups are reduced larger first, "
     "then newer root causes (OUT/night-seen.json), then the smaller test. Through --cluster "
     "the client keeps the account and submits the reductions one at a time."},
    {WH_CLI_REDUCE, "reference", 0, "DIR|GIT-REV|auto|none",
     "A version without the bug (a folder or a git revision of the project): checks that the "
     "reduced test still passes there (the fault is kept). auto, the default in a git project: "
     "HEAD when tracked files outside the test changed, else the merge base with the upstream "
     "branch; none: no check."},
    {WH_CLI_REDUCE, "keep-fault", 0, NULL,
     "With --reference, a candidate is kept only if it also passes on the reference (the "
     "default with --reference)."},
    {WH_CLI_REDUCE, "no-keep-fault", 0, NULL,
     "With --reference, only reports whether the fault is kept."},
    {WH_CLI_REDUCE, "speculate", 0, NULL,
     "Starts candidates beyond the current one on idle slots (the default)."},
    {WH_CLI_REDUCE, "no-speculate", 0, NULL, "Evaluates one candidate round at a time."},
    {WH_CLI_REDUCE, "precheck", 0, "on|off|audit",
     "Predicts candidates that cannot build with libclang and skips them: on (default), off, "
     "or audit (build them anyway and count disagreements)."},
    {WH_CLI_REDUCE, "ub-guard", 0, "on|off",
     "A candidate whose front end (libclang, the test file's compile command) raises a "
     "-Wuninitialized, -Wsometimes-uninitialized, -Wconditional-uninitialized or -Wreturn-type "
     "warning the original does not is not Preserved: it reads an indeterminate value and "
     "fails the same way only by accident (verdict UBGuard, not built). on (default) or off."},
    {WH_CLI_REDUCE, "prior", 0, "slice|none",
     "What the parallel walk expects of a removal no verdict speaks for yet: slice (default) "
     "expects one that keeps the failing statement's backward slice (over the test body's "
     "data flow) Preserved; none expects every removal not Preserved. Decides how far idle "
     "slots run ahead, never the answer."},
    {WH_CLI_REDUCE, "from-junit", 0, "REPORT",
     "Reduces every failing test (failure or error) of a JUnit XML report, one job each on one "
     "pool and cache, each with its own run folder; --test is not needed and --file may be a "
     "glob of the test files that define them. {test} in --build and --run and $WHITTLE_TEST "
     "name each job's test. Tests no file defines are named and skipped (exit 1). The "
     "failures are grouped by root cause before reducing (one reduction per group, the others "
     "answered by it; --each reduces all), and OUT/night.html reports the batch."},
    {WH_CLI_REDUCE, "from-ctest", 0, "BUILD_DIR",
     "As --from-junit, for the failing tests of the last ctest run in BUILD_DIR "
     "(Testing/Temporary/LastTestsFailed.log, refused when older than LastTest.log). Alone, "
     "in the project folder, it needs nothing else: the test files, --setup, --build and "
     "--run come from what CMake and CTest recorded (CMakeCache.txt, CTestTestfile.cmake; "
     "the build folder is configured afresh in the workspace), and a whole-program test "
     "is split into the failing functions its output names (cmocka, GoogleTest, Unity, "
     "Check, CUnit, Criterion), each reduced. --from-junit does the same for a report in "
     "a CMake build folder."},
    {WH_CLI_REDUCE, "each", 0, NULL,
     "With --from-ctest or --from-junit: reduce every failing test, not one per root cause. "
     "By default each failing test's original is run first (its fingerprint, nothing "
     "reduced), the failures are grouped by root cause (kind, failing line, the message "
     "with its numbers and the test's name masked), and only each group's smallest test is "
     "reduced; the others get its answer."},
    {WH_CLI_REDUCE, "ignore", 0, "GLOB",
     "Leaves files matching GLOB (a name anywhere, or a path from the project root when it "
     "holds '/') out of the job's identity, so they do not miss the cache; may be given more "
     "than once."},
    {WH_CLI_REDUCE, "snapshot", 0, "git|tar|auto|none",
     "With --cluster: git sends the project as a git snapshot (a commit the remote has plus a "
     "patch of the uncommitted changes to tracked files), tar sends its files (a gzip'd tar "
     "uploaded to the coordinator, without .git, build* folders, run folders and --ignore "
     "globs; for any project, git or not), auto is git in a git work tree and tar elsewhere; "
     "so the coordinator and the nodes need no shared filesystem nor a grant. none (default) "
     "sends its path."},
    {WH_CLI_REDUCE, "snapshot-max", 0, "SIZE",
     "With --snapshot tar: the most the packed project may weigh (like 20M; K, M, G; default "
     "and at most 64M); a bigger one is refused before anything is sent."},
    {WH_CLI_REDUCE, "verify-local", 0, NULL,
     "With --cluster: after the cluster's answer, builds and runs the original and the reduced "
     "test in a fresh copy of the project on this machine (the job's setup, build and run) as a "
     "second opinion: the reduced test must fail the same way (and pass on a --reference "
     "folder); else exit 3. Done without asking when one node judged every candidate and "
     "verified the answer too (no second opinion in the cluster)."},
    {WH_CLI_REDUCE, "no-verify-local", 0, NULL,
     "With --cluster: never builds on this machine; an answer one node judged and verified "
     "alone then ends \"not verified\", exit 5."},
    {WH_CLI_REDUCE, "git-url", 0, "URL",
     "With --snapshot git: where the coordinator and the nodes fetch the commit (default: the "
     "project's origin remote)."},
    {WH_CLI_REDUCE, "verbose", 'v', NULL,
     "Prints a [cand_NNN] line for every candidate (repeat for more)."},
    {WH_CLI_SUBMIT, "group", 0, NULL,
     "Groups the file's jobs before reducing them, as reduce --from-ctest does: each job's "
     "original runs once for its fingerprint, the jobs are grouped by root cause and only "
     "each group's smallest test is reduced; the others get its answer. The night's report "
     "(night.json, night.html) goes to the first job's \"out\" on this machine (default "
     "./whittle-runs). Off by default: a file's jobs are reduced as asked (a farm, a "
     "benchmark, tests of different projects)."},
    {WH_CLI_REDUCE | WH_CLI_SUBMIT, "quiet", 'q', NULL,
     "Prints only the result and errors: no status line, no progress lines. Without it a "
     "terminal shows one live status line (sweep, level, round, units left, builds, cache "
     "hits, ETA); other output gets plain Progress: lines (every $WHITTLE_PROGRESS_SECS "
     "seconds, default 10, and at each new level)."},

    /* inspect (and reduce) */
    {WH_CLI_INSPECT, "list", 0, NULL, "Lists the test functions of FILE instead of a tree."},
    {WH_CLI_INSPECT, "json", 0, NULL, "Prints JSON instead of text."},
    {WH_CLI_INSPECT | WH_CLI_REDUCE, "compdb", 'p', "BUILD_DIR",
     "Takes the test file's compile flags from BUILD_DIR/compile_commands.json (flags after -- "
     "win over it)."},
    {WH_CLI_INSPECT | WH_CLI_REDUCE, "allow-parse-errors", 0, NULL,
     "Parses a test file with errors anyway and warns: statements libclang could not parse are "
     "missing from the tree."},


    /* cluster clients */
    {S_CLIENT, "cluster", 0, "ENDPOINT",
     "The coordinator, tcp://HOST:PORT; reduce sends its job there instead of running it here; "
     "mutate sends its kill runs and reductions there."},
    {S_CLIENT, "secret-key", 0, "FILE",
     "This client's CURVE secret key (from whittle keygen); also $WHITTLE_SECRET_KEY."},
    {S_CLIENT, "server-key", 0, "FILE", "The coordinator's public key; also $WHITTLE_SERVER_KEY."},
    {S_CLIENT, "insecure", 0, NULL,
     "Connects without CURVE keys (accepted on a loopback --cluster only)."},

    /* keygen */
    {WH_CLI_KEYGEN, "out", 0, "PREFIX", "Writes PREFIX.secret (mode 0600) and PREFIX.public."},

    /* suite */
    {WH_CLI_SUITE, "kills", 0, "FILE", "The kill matrix (kills.csv from whittle mutate)."},
    {WH_CLI_SUITE, "method", 0, "ilp|diff|fast|all",
     "ilp: the exact smallest set cover (GLPK); diff: greedy by difference; fast: FAST++ "
     "similarity sampling; all (default): each of them."},
    {WH_CLI_SUITE, "potential", 0, NULL, "Counts potential kills as well as definite ones."},
    {WH_CLI_SUITE, "seed", 0, "N", "The random seed of fast (1 to 2147483647, default 1)."},
    {WH_CLI_SUITE, "out", 0, "FILE", "Also writes the results as JSON to FILE."},

    /* mutate */
    {WH_CLI_MUTATE, "source", 0, "GLOB",
     "The library sources to mutate, a glob under the project ('src/*.c')."},
    {WH_CLI_MUTATE, "tests-file", 0, "FILE",
     "The test file whose tests (the names inspect --list finds) judge each mutant."},
    {WH_CLI_MUTATE, "ops", 0, "LIST",
     "Mutation operators, comma-separated: ROR, AOR, LCR, IN, RV (default all)."},
    {WH_CLI_MUTATE, "max", 0, "N", "At most N mutants (1 to 1000000)."},
    {WH_CLI_MUTATE, "repeat", 0, "K", "Runs every test K times per mutant (1 to 100)."},
    {WH_CLI_MUTATE, "jobs", 'j', "N", "Slots (workspace copies) run in parallel (1 to 256)."},
    {WH_CLI_MUTATE, "out", 0, "DIR", "The output folder (default bench-run)."},
    {WH_CLI_MUTATE, "reduce", 0, NULL,
     "Then reduces every definite (mutant, test) kill with the default walk and with "
     "--algorithm linear, the clean project as --reference, and writes bench.json and "
     "bench.txt (the thesis's measures, builds, fault kept, precision and recall)."},

    /* whittle-coordinator */
    {WH_CLI_COORD, "bind", 0, "ENDPOINT",
     "Where nodes and clients connect (default tcp://0.0.0.0:7700)."},
    {WH_CLI_COORD, "secret-key", 0, "FILE",
     "The coordinator's CURVE secret key: turns CURVE on (with --nodes and --clients)."},
    {WH_CLI_COORD, "nodes", 0, "DIR", "The public keys of the nodes allowed in."},
    {WH_CLI_COORD, "clients", 0, "DIR", "The public keys of the clients allowed in."},
    {WH_CLI_COORD, "insecure", 0, NULL,
     "Runs without CURVE (accepted on a loopback --bind only)."},
    {WH_CLI_COORD, "journal", 0, "PATH|off",
     "Where submitted jobs are journaled, so that a restarted coordinator resumes them: a file, "
     "a redis:// URL, or off. Default: the Redis of a redis:// --cache (hash whittle:v1:jobs), "
     "else the file journal beside the embedded cache."},
    {WH_CLI_COORD, "runs", 0, "DIR",
     "Where every submitted job's run folder goes (default ./whittle-runs); a client's --out "
     "names at most a relative folder under it."},
    {WH_CLI_COORD, "grant", 0, "KEY=ROOT",
     "Client key KEY (its key file's base name in --clients) may name projects, references "
     "and -p folders at ROOT or below it (repeatable; symlinks resolved). A job naming any "
     "other path is refused with exit 2, naming the path and the key; a key without a grant "
     "may only send snapshots (--snapshot git). Under --insecure every client may name any "
     "path."},
    {WH_CLI_COORD, "max-client-jobs", 0, "N",
     "At most N jobs queued or running per client key (1 to 100000, default 32; under "
     "--insecure, for all clients together). A submit beyond it is refused, not journaled, "
     "and its client exits 4."},
    {WH_CLI_COORD, "prepare-threads", 0, "N",
     "Prepares submitted jobs on N threads (1 to 64, default: the cores), first come, first "
     "served: each job's test parsed and project hashed, its original queued, then its "
     "front end (precheck, UB guard) set up while the original runs."},
    {WH_CLI_COORD, "metrics", 0, "[HOST:]PORT",
     "Serves Prometheus text at /metrics and the probes /healthz and /readyz (PORT alone: on "
     "127.0.0.1), to up to 1024 connections at once; one idle for 5 s is closed."},
    {WH_CLI_COORD | WH_CLI_NODE, "heartbeat", 0, "MS",
     "Heartbeat interval in milliseconds (10 to 600000, default 1000)."},
    {WH_CLI_COORD | WH_CLI_NODE, "verbose", 'v', NULL, "Logs more (info level)."},

    /* whittle-node */
    {WH_CLI_NODE, "connect", 0, "ENDPOINT", "The coordinator, tcp://HOST:PORT."},
    {WH_CLI_NODE, "secret-key", 0, "FILE",
     "This node's CURVE secret key (from whittle keygen); also $WHITTLE_SECRET_KEY."},
    {WH_CLI_NODE, "server-key", 0, "FILE", "The coordinator's public key; also $WHITTLE_SERVER_KEY."},
    {WH_CLI_NODE, "insecure", 0, NULL,
     "Connects without CURVE keys (accepted on a loopback --connect only)."},
    {WH_CLI_NODE, "slots", 0, "N", "Slot threads, each with its warm workspace (1 to 1024, default 1)."},
    {WH_CLI_NODE, "workdir", 0, "DIR", "Where workspaces go (default /var/lib/whittle)."},
    {WH_CLI_NODE, "id", 0, "NAME", "This node's name in status (default HOST-PID)."},
    {WH_CLI_NODE, "max-disk", 0, "SIZE",
     "Evicts the least recently used idle workspaces past SIZE (like 20G; K, M, G, T)."},
    {WH_CLI_NODE, "run-as", 0, "USER",
     "Started as root, runs every job's setup, build and test as USER, never as root, instead "
     "of a uid per client key and workspace (--job-uids, the default): for a node that serves "
     "one tenant. Every workspace's commands get a TMPDIR and HOME of their own, emptied "
     "before each run, and an allow-listed environment (PATH, HOME, TMPDIR, LANG, LC_*, TERM, "
     "TZ, USER, LOGNAME, SHELL; none of the node's variables)."},
    {WH_CLI_NODE, "sandbox", 0, "auto|bwrap|none",
     "bwrap confines each job command with bubblewrap: system folders read-only, a private "
     "/tmp, its workspace (other workspaces masked), not the node's secret key, loopback-only "
     "network; the node does not "
     "start where no sandbox starts. auto (the default): bwrap where a sandbox starts, else "
     "none with a warning naming why. none: no sandbox, no warning."},
    {WH_CLI_NODE, "pass-env", 0, "NAME",
     "Job commands see only an allow-listed environment (PATH, HOME, TMPDIR, LANG, LC_*, TERM, "
     "TZ, USER, LOGNAME, SHELL), never the node's secrets; --pass-env NAME (repeatable) adds "
     "this node's NAME to it (a compiler launcher's settings, a proxy)."},
    {WH_CLI_NODE, "job-uids", 0, "LO-HI",
     "Started as root, runs each workspace key's commands (one client key's project "
     "snapshot, setup and test file) as a uid of its own from LO..HI, skipping uids with an "
     "account; its key folder is that uid's alone, so two client keys never share a uid and "
     "one job's commands cannot read or change another's workspace; the project is read and "
     "copied as that uid. Default for a node started as root: 60000-60999 (unless --run-as "
     "is given)."},
    {0, NULL, 0, NULL, NULL},
};
