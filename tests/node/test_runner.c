/*
 * Tests of node/runner: exit codes and signals, environment, log capture,
 * stdin, descriptor hygiene, ticks and cancellation, and above all that a
 * timeout or an exit leaves nothing of the command's process group running
 * (shell background jobs and a C-level double fork).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"
#include "wh_common.h"
#include "wh_test.h"

static char s_tmp[256];
static char s_self[4096];

static char *s_path(const char *name)
{
    return wh_path_join(s_tmp, name);
}

/* State and process group of pid from /proc; 0 when it does not exist. */
static int s_proc_stat(pid_t pid, char *state, pid_t *pgrp)
{
    char p[64], buf[1024];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *rp = strrchr(buf, ')');
    if (!rp)
        return 0;
    char st = 0;
    int ppid = 0, pg = 0;
    if (sscanf(rp + 1, " %c %d %d", &st, &ppid, &pg) != 3)
        return 0;
    if (state)
        *state = st;
    if (pgrp)
        *pgrp = pg;
    return 1;
}

/* 1 when pid exists in any state, zombies included. */
static int s_exists(pid_t pid)
{
    char st = 0;
    return s_proc_stat(pid, &st, NULL);
}

/* Number of processes in group pgid, zombies included. */
static int s_group_any(pid_t pgid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char st = 0;
        pid_t pg = 0;
        if (s_proc_stat((pid_t)pid, &st, &pg) && pg == pgid)
            n++;
    }
    closedir(d);
    return n;
}

/* 1 when no process of pids and of group pgid exists any more, not even as
 * a zombie: wh_run returns only after the whole group is gone and reaped
 * (the runner is a child subreaper), so this does not wait. */
static int s_all_gone(const pid_t *pids, int n, pid_t pgid)
{
    int left = pgid > 0 ? s_group_any(pgid) : 0;
    for (int i = 0; i < n; i++)
        left += s_exists(pids[i]);
    return left == 0;
}

static int s_read_pids(const char *path, pid_t *pids, int max)
{
    char *text = NULL;
    if (wh_read_file(path, 4096, &text, NULL))
        return 0;
    int n = 0;
    for (char *p = text; n < max;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        pids[n++] = (pid_t)v;
        p = end;
    }
    free(text);
    return n;
}

/* Helper mode: "<self> --double-fork FILE" writes its pid and group, forks
 * a child that forks a grandchild and exits (the grandchild is orphaned but
 * stays in the group), and sleeps. */
static int s_double_fork(const char *file)
{
    FILE *f = fopen(file, "a");
    if (!f)
        return 1;
    fprintf(f, "%d %d\n", (int)getpgrp(), (int)getpid());
    fclose(f);
    pid_t c = fork();
    if (c == 0) {
        pid_t g = fork();
        if (g == 0) {
            FILE *h = fopen(file, "a");
            if (h) {
                fprintf(h, "%d\n", (int)getpid());
                fclose(h);
            }
            sleep(100);
            _exit(0);
        }
        _exit(0);
    }
    waitpid(c, NULL, 0);
    sleep(100);
    return 0;
}

static void test_exit_codes(void)
{
    wh_run_opts_t o = {.cmd = "exit 3", .cwd = s_tmp, .timeout_ms = 5000};
    wh_run_result_t r;
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    CHECK_EQ_INT(r.exit_code, 3);
    CHECK(!r.signaled && !r.timed_out && !r.cancelled);

    o.cmd = "true";
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    CHECK_EQ_INT(r.exit_code, 0);

    o.cmd = "kill -TERM $$";
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    CHECK(r.signaled);
    CHECK_EQ_INT(r.term_signal, SIGTERM);

    o.cmd = "exit 0";
    o.cwd = "/nonexistent/whittle";
    CHECK(wh_run(&o, &r) < 0);

    CHECK_EQ_INT(wh_run(NULL, &r), WH_EINVAL);
}

static void test_cwd_and_env(void)
{
    setenv("WH_RUNNER_OLD", "old", 1);
    setenv("WH_RUNNER_KEEP", "kept", 1);
    const char *env[] = {"WH_RUNNER_X=hello world", "WH_RUNNER_OLD=new", NULL};
    wh_run_opts_t o = {.cmd = "printf '%s|%s|%s|%s' \"$WH_RUNNER_X\" \"$WH_RUNNER_OLD\" "
                              "\"$WH_RUNNER_KEEP\" \"$(pwd)\" > env.out",
                       .cwd = s_tmp,
                       .env = env,
                       .timeout_ms = 5000};
    wh_run_result_t r;
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    CHECK_EQ_INT(r.exit_code, 0);
    char *p = s_path("env.out"), *text = NULL;
    CHECK_EQ_INT(wh_read_file(p, 4096, &text, NULL), 0);
    char *want = wh_strdup_printf("hello world|new|kept|%s", s_tmp);
    CHECK_EQ_STR(text, want);
    free(want);
    free(text);
    free(p);
}

/* The workspace's scratch (TMPDIR, HOME) wins over the process's own, the
 * caller's entries win over the scratch's, and no key is set twice. */
static void test_scratch_env(void)
{
    setenv("HOME", "/nonexistent-home", 1);
    const char *env[] = {"WH_RUNNER_S=caller", NULL};
    const char *scratch[] = {"TMPDIR=/scratch/tmp", "HOME=/scratch/home", "WH_RUNNER_S=scratch",
                             NULL};
    wh_run_opts_t o = {.cmd = "printf '%s|%s|%s|%s' \"$TMPDIR\" \"$HOME\" \"$WH_RUNNER_S\" "
                              "\"$(env | grep -c '^HOME=')\" > scratch.out",
                       .cwd = s_tmp,
                       .env = env,
                       .scratch_env = scratch,
                       .timeout_ms = 5000};
    wh_run_result_t r;
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    CHECK_EQ_INT(r.exit_code, 0);
    char *p = s_path("scratch.out"), *text = NULL;
    CHECK_EQ_INT(wh_read_file(p, 4096, &text, NULL), 0);
    CHECK_EQ_STR(text, "/scratch/tmp|/scratch/home|caller|1");
    free(text);
    free(p);
}

static void test_log_capture(void)
{
    char *log = s_path("capture.log");
    wh_run_opts_t o = {.cmd = "echo to-out; echo to-err >&2; cat", .cwd = s_tmp,
                       .timeout_ms = 5000, .log_path = log};
    wh_run_result_t r;
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    /* stdin is /dev/null: cat ends at once instead of hanging. */
    CHECK(!r.timed_out);
    CHECK_EQ_INT(r.exit_code, 0);
    CHECK_EQ_INT(wh_run(&o, &r), 0); /* appends */
    char *text = NULL;
    CHECK_EQ_INT(wh_read_file(log, 4096, &text, NULL), 0);
    CHECK_EQ_STR(text, "to-out\nto-err\nto-out\nto-err\n");
    free(text);
    free(log);

    /* No log: output goes to /dev/null. */
    o.log_path = NULL;
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    CHECK_EQ_INT(r.exit_code, 0);
}

static void test_fds_not_inherited(void)
{
    /* A descriptor without close-on-exec, like a socket some library
     * opened carelessly. */
    char *p = s_path("leak.txt");
    int fd = open(p, O_WRONLY | O_CREAT, 0644);
    CHECK(fd > 2);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "test -e /proc/$$/fd/%d && exit 1; exit 0", fd);
    wh_run_opts_t o = {.cmd = cmd, .cwd = s_tmp, .timeout_ms = 5000};
    wh_run_result_t r;
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    CHECK_EQ_INT(r.exit_code, 0);
    /* The check itself can fail: fd 1 is inherited. */
    o.cmd = "test -e /proc/$$/fd/1 && exit 1; exit 0";
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    CHECK_EQ_INT(r.exit_code, 1);
    close(fd);
    free(p);
}

static void test_timeout_kills_shell_jobs(void)
{
    char *f = s_path("jobs.pids");
    char *cmd = wh_strdup_printf("echo $$ > '%s'; sleep 100 & echo $! >> '%s'; sleep 100", f, f);
    wh_run_opts_t o = {.cmd = cmd, .cwd = s_tmp, .timeout_ms = 500};
    wh_run_result_t r;
    uint64_t t0 = wh_now_ms();
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    uint64_t took = wh_now_ms() - t0;
    CHECK(r.timed_out);
    CHECK(!r.cancelled);
    CHECK(took >= 500 && took < 3000);
    CHECK(r.ms >= 500);
    pid_t pids[4];
    int n = s_read_pids(f, pids, 4);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK(pids[0] != pids[1]);
        CHECK(s_all_gone(pids, n, pids[0]));
    }
    free(cmd);
    free(f);
}

static void test_timeout_kills_double_fork(void)
{
    char *f = s_path("fork.pids");
    char *cmd = wh_strdup_printf("'%s' --double-fork '%s'", s_self, f);
    wh_run_opts_t o = {.cmd = cmd, .cwd = s_tmp, .timeout_ms = 700};
    wh_run_result_t r;
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    CHECK(r.timed_out);
    pid_t pids[4];
    int n = s_read_pids(f, pids, 4);
    /* pgid, helper pid, grandchild pid */
    CHECK_EQ_INT(n, 3);
    if (n == 3) {
        CHECK(pids[0] > 1);
        CHECK(s_all_gone(pids + 1, 2, pids[0]));
    }
    free(cmd);
    free(f);
}

static void test_exit_kills_leftovers(void)
{
    char *f = s_path("left.pids");
    char *cmd = wh_strdup_printf("echo $$ > '%s'; sleep 100 & echo $! >> '%s'; exit 4", f, f);
    wh_run_opts_t o = {.cmd = cmd, .cwd = s_tmp, .timeout_ms = 10000};
    wh_run_result_t r;
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    CHECK(!r.timed_out);
    CHECK_EQ_INT(r.exit_code, 4);
    CHECK(r.ms < 3000);
    pid_t pids[4];
    int n = s_read_pids(f, pids, 4);
    CHECK_EQ_INT(n, 2);
    if (n == 2)
        CHECK(s_all_gone(pids, n, pids[0]));
    free(cmd);
    free(f);
}

typedef struct {
    int calls;
    int cancel_at;
} s_tick_t;

static int s_tick(void *arg)
{
    s_tick_t *t = arg;
    t->calls++;
    return t->cancel_at && t->calls >= t->cancel_at;
}

static void test_tick_and_cancel(void)
{
    char *f = s_path("cancel.pids");
    char *cmd = wh_strdup_printf("echo $$ > '%s'; sleep 100 & sleep 100", f);
    s_tick_t t = {0, 3};
    wh_run_opts_t o = {.cmd = cmd, .cwd = s_tmp, .tick = s_tick, .tick_arg = &t};
    wh_run_result_t r;
    CHECK_EQ_INT(wh_run(&o, &r), 0);
    CHECK(r.cancelled);
    CHECK(!r.timed_out);
    CHECK_EQ_INT(t.calls, 3);
    CHECK(r.ms >= 250 && r.ms < 2000);
    pid_t pids[2];
    if (s_read_pids(f, pids, 1) == 1)
        CHECK(s_all_gone(pids, 1, pids[0]));
    else
        CHECK(0);

    /* Ticks arrive about every 100 ms while a command runs. */
    s_tick_t u = {0, 0};
    wh_run_opts_t o2 = {.cmd = "sleep 0.45", .cwd = s_tmp, .timeout_ms = 5000,
                        .tick = s_tick, .tick_arg = &u};
    CHECK_EQ_INT(wh_run(&o2, &r), 0);
    CHECK(!r.cancelled);
    CHECK_EQ_INT(r.exit_code, 0);
    CHECK(u.calls >= 3 && u.calls <= 5);
    free(cmd);
    free(f);
}

typedef struct {
    int i;
    int ok;
} s_job_t;

static void *s_thread(void *arg)
{
    s_job_t *j = arg;
    char name[64], envv[64];
    snprintf(name, sizeof name, "thread-%d.log", j->i);
    snprintf(envv, sizeof envv, "WH_RUNNER_I=%d", j->i);
    char *log = s_path(name);
    const char *env[] = {envv, NULL};
    wh_run_opts_t o = {.cmd = "sleep 0.05; echo \"i=$WH_RUNNER_I\"; exit $WH_RUNNER_I",
                       .cwd = s_tmp, .env = env, .timeout_ms = 10000, .log_path = log};
    int ok = 1;
    for (int k = 0; k < 5; k++) {
        wh_run_result_t r;
        ok &= wh_run(&o, &r) == 0 && r.exit_code == j->i;
    }
    char *text = NULL;
    char want[64];
    snprintf(want, sizeof want, "i=%d\n", j->i);
    ok &= wh_read_file(log, 4096, &text, NULL) == 0 && strlen(text) == 5 * strlen(want) &&
          strncmp(text, want, strlen(want)) == 0;
    free(text);
    free(log);
    j->ok = ok;
    return NULL;
}

static void test_threads(void)
{
    enum { N = 8 };
    pthread_t th[N];
    s_job_t jobs[N];
    for (int i = 0; i < N; i++) {
        jobs[i].i = i + 1;
        jobs[i].ok = 0;
        pthread_create(&th[i], NULL, s_thread, &jobs[i]);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        CHECK(jobs[i].ok);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--double-fork") == 0)
        return s_double_fork(argv[2]);
    ssize_t n = readlink("/proc/self/exe", s_self, sizeof s_self - 1);
    if (n <= 0)
        return 1;
    s_self[n] = '\0';
    snprintf(s_tmp, sizeof s_tmp, "/tmp/wh-runner-XXXXXX");
    if (!mkdtemp(s_tmp))
        return 1;

    RUN_TEST(test_exit_codes);
    RUN_TEST(test_cwd_and_env);
    RUN_TEST(test_scratch_env);
    RUN_TEST(test_log_capture);
    RUN_TEST(test_fds_not_inherited);
    RUN_TEST(test_timeout_kills_shell_jobs);
    RUN_TEST(test_timeout_kills_double_fork);
    RUN_TEST(test_exit_kills_leftovers);
    RUN_TEST(test_tick_and_cancel);
    RUN_TEST(test_threads);

    wh_rm_rf(s_tmp);
    TEST_MAIN_END();
}
