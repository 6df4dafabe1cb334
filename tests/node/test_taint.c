/*
 * test_taint — the infrastructure-fault classifier (node/taint.c) on what
 * real commands print and how they end, run through the real runner:
 *  - ENOSPC (a write to /dev/full) in a build's or a test's output;
 *  - a missing tool: exit 127 with the shell's "not found", and what does
 *    not count (exit 127 alone, "not found" with exit 1);
 *  - SIGKILL from outside vs whittle's own timeout and cancel kills;
 *  - a crash signal is the test's verdict, not a taint; a signal that is
 *    the failure being reduced is not a taint either;
 *  - OOM texts count for builds only;
 *  - a small tmpfs is a full file system (as root; skipped otherwise).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner.h"
#include "taint.h"
#include "wh_common.h"
#include "wh_test.h"

static char s_dir[] = "/tmp/wh-taint.XXXXXX";

static int s_cancel_at_once(void *arg)
{
    (void)arg;
    return 1;
}

/* Runs cmd through the runner; classifies it as step with own. */
static wh_taint_t s_run_classify(const char *cmd, wh_step_t step, unsigned timeout_ms,
                                 const char *own, wh_run_result_t *rr, char *why, size_t n)
{
    char *log = wh_path_join(s_dir, "out.log");
    unlink(log);
    wh_run_opts_t o = {cmd, s_dir, NULL, timeout_ms, log, NULL, NULL, NULL, NULL, NULL};
    CHECK_EQ_INT(wh_run(&o, rr), 0);
    char *out = NULL;
    size_t len = 0;
    CHECK_EQ_INT(wh_read_file(log, 1 << 20, &out, &len), 0);
    wh_taint_step_t st = {step, rr, out, len, own};
    wh_taint_t t = wh_taint_classify(&st, why, n);
    free(out);
    free(log);
    return t;
}

static void test_enospc_text(void)
{
    wh_run_result_t rr;
    char why[512];
    /* /dev/full fails every write with ENOSPC: the real message of a real
     * tool, the same one a compiler prints on a full workspace. */
    wh_taint_t t = s_run_classify("echo compiling; head -c 100 /dev/zero > /dev/full; exit 2",
                                  WH_STEP_BUILD, 5000, NULL, &rr, why, sizeof why);
    CHECK_EQ_INT(rr.exit_code, 2);
    CHECK_EQ_INT(t, WH_TAINT_NO_SPACE);
    /* coreutils words the line differently for a file and a device. */
    CHECK(strncmp(why, "build output: `head: ", 21) == 0);
    CHECK(strlen(why) > 24 && strcmp(why + strlen(why) - 24, "No space left on device`") == 0);
    CHECK_EQ_STR(wh_taint_name(t), "no space");
    /* The same in a test's output is a taint too... */
    t = s_run_classify("head -c 100 /dev/zero > /dev/full", WH_STEP_TEST, 5000, NULL, &rr, why,
                       sizeof why);
    CHECK_EQ_INT(t, WH_TAINT_NO_SPACE);
    /* ...unless it is the failure being reduced. */
    t = s_run_classify("head -c 100 /dev/zero > /dev/full", WH_STEP_TEST, 5000,
                       "assert write failed: No space left on device", &rr, why, sizeof why);
    CHECK_EQ_INT(t, WH_TAINT_NONE);
    CHECK_EQ_STR(why, "");
    /* A compiler's line on a long workspace path: the quote keeps its
     * start and its end, where the reason is. */
    t = s_run_classify("echo 'tests/t.c:33:1: fatal error: error writing to /tmp/whittle-e2e.X/full/w/"
                       "ws/a980ff0489cf78f0ed5e5eacab7541b5e7cd4d765ba0bcd2fb5b2d2683450cf2/"
                       "slot-0.scratch/tmp/a/much/deeper/folder/for/the/compiler/ccdknKvt.s: "
                       "No space left on device'; exit 1",
                       WH_STEP_BUILD, 5000, NULL, &rr, why, sizeof why);
    CHECK_EQ_INT(t, WH_TAINT_NO_SPACE);
    const char *start = "build output: `tests/t.c:33:1: fatal error: error writing to";
    CHECK(strncmp(why, start, strlen(start)) == 0);
    CHECK(strstr(why, "...") != NULL);
    CHECK(strlen(why) > 24 && strcmp(why + strlen(why) - 24, "No space left on device`") == 0);
    /* A quota, from text a tool printed. */
    t = s_run_classify("echo 'ld: cannot open output file t: Disk quota exceeded'; exit 1",
                       WH_STEP_BUILD, 5000, NULL, &rr, why, sizeof why);
    CHECK_EQ_INT(t, WH_TAINT_QUOTA);
    CHECK_EQ_STR(why, "build output: `ld: cannot open output file t: Disk quota exceeded`");
    /* A sandbox that did not start: the test never ran. */
    t = s_run_classify("echo \"bwrap: Can't create file at /w/ws/k/slot-1.report: No such file or "
                       "directory\" >&2; exit 1",
                       WH_STEP_TEST, 5000, NULL, &rr, why, sizeof why);
    CHECK_EQ_INT(t, WH_TAINT_SANDBOX);
    CHECK_EQ_STR(wh_taint_name(t), "sandbox did not start");
}

static void test_missing_tool(void)
{
    wh_run_result_t rr;
    char why[512];
    wh_taint_t t = s_run_classify("no-such-tool-wh-xyz -j4", WH_STEP_BUILD, 5000, NULL, &rr, why,
                                  sizeof why);
    CHECK_EQ_INT(rr.exit_code, 127);
    CHECK_EQ_INT(t, WH_TAINT_NO_TOOL);
    CHECK_EQ_STR(why, "build exited 127: `sh: 1: no-such-tool-wh-xyz: not found`");
    /* A test binary that is not executable here. */
    char *f = wh_path_join(s_dir, "t.sh");
    CHECK_EQ_INT(wh_write_file(f, "#!/bin/sh\n", 10), 0);
    chmod(f, 0644);
    t = s_run_classify("./t.sh", WH_STEP_TEST, 5000, NULL, &rr, why, sizeof why);
    CHECK_EQ_INT(rr.exit_code, 126);
    CHECK_EQ_INT(t, WH_TAINT_NO_TOOL);
    CHECK_EQ_STR(why, "test exited 126: `sh: 1: ./t.sh: Permission denied`");
    free(f);
    /* Exit 127 without a shell's message, and "not found" in a failing
     * test's output, are outcomes, not taints. */
    t = s_run_classify("exit 127", WH_STEP_BUILD, 5000, NULL, &rr, why, sizeof why);
    CHECK_EQ_INT(t, WH_TAINT_NONE);
    t = s_run_classify("echo 'test.c:3: key not found'; exit 1", WH_STEP_TEST, 5000, NULL, &rr,
                       why, sizeof why);
    CHECK_EQ_INT(t, WH_TAINT_NONE);
}

static void test_signals(void)
{
    wh_run_result_t rr;
    char why[512];
    /* SIGKILL from outside (here the command kills its own shell, which is
     * what an OOM kill or an operator looks like to whittle). */
    wh_taint_t t = s_run_classify("kill -KILL $$", WH_STEP_TEST, 5000, NULL, &rr, why, sizeof why);
    CHECK(rr.signaled && rr.term_signal == 9);
    CHECK_EQ_INT(t, WH_TAINT_SIGNAL);
    CHECK_EQ_STR(why, "test killed by SIGKILL, which whittle did not send");
    /* A child killed, reported by the shell as 137 and "Killed". */
    t = s_run_classify("sh -c 'kill -KILL $$'", WH_STEP_TEST, 5000, NULL, &rr, why, sizeof why);
    CHECK_EQ_INT(rr.exit_code, 137);
    CHECK_EQ_INT(t, WH_TAINT_SIGNAL);
    CHECK_EQ_STR(why, "test reported a child killed by SIGKILL, which whittle did not send");
    t = s_run_classify("sh -c 'kill -TERM $$'; true", WH_STEP_TEST, 5000, NULL, &rr, why,
                       sizeof why);
    CHECK_EQ_INT(rr.exit_code, 0);
    CHECK_EQ_INT(t, WH_TAINT_NONE); /* TERM prints nothing and the shell went on */
    t = s_run_classify("sh -c 'kill -KILL $$'; true", WH_STEP_TEST, 5000, NULL, &rr, why,
                       sizeof why);
    CHECK_EQ_INT(t, WH_TAINT_SIGNAL); /* the shell's "Killed" line */
    CHECK_EQ_STR(why, "test output: `Killed`");
    /* whittle's own timeout kill: not a taint (the verdict is a timeout). */
    t = s_run_classify("sleep 5", WH_STEP_TEST, 150, NULL, &rr, why, sizeof why);
    CHECK(rr.timed_out);
    CHECK_EQ_INT(t, WH_TAINT_NONE);
    /* A cancel is whittle's too. */
    char *log = wh_path_join(s_dir, "c.log");
    wh_run_opts_t o = {"sleep 5", s_dir, NULL, 0, log, s_cancel_at_once, NULL, NULL, NULL, NULL};
    CHECK_EQ_INT(wh_run(&o, &rr), 0);
    CHECK(rr.cancelled);
    wh_taint_step_t st = {WH_STEP_BUILD, &rr, NULL, 0, NULL};
    CHECK_EQ_INT(wh_taint_classify(&st, why, sizeof why), WH_TAINT_NONE);
    free(log);
    /* A crash is the test's own verdict. */
    t = s_run_classify("kill -SEGV $$", WH_STEP_TEST, 5000, NULL, &rr, why, sizeof why);
    CHECK(rr.signaled && rr.term_signal == 11);
    CHECK_EQ_INT(t, WH_TAINT_NONE);
    /* A test whose failure is being killed raises it itself. */
    t = s_run_classify("kill -KILL $$", WH_STEP_TEST, 5000, "crash(SIGKILL) ", &rr, why,
                       sizeof why);
    CHECK_EQ_INT(t, WH_TAINT_NONE);
    /* Any signal that ends a build's shell came from outside. */
    t = s_run_classify("kill -SEGV $$", WH_STEP_BUILD, 5000, NULL, &rr, why, sizeof why);
    CHECK_EQ_INT(t, WH_TAINT_SIGNAL);
    CHECK_EQ_STR(why, "build killed by SIGSEGV, which whittle did not send");
}

static void test_oom_build_only(void)
{
    wh_run_result_t rr = {0};
    rr.exit_code = 1;
    char why[512];
    const char *gcc = "gcc: fatal error: Killed signal terminated program cc1\ncompilation terminated.\n";
    wh_taint_step_t st = {WH_STEP_BUILD, &rr, gcc, strlen(gcc), NULL};
    CHECK_EQ_INT(wh_taint_classify(&st, why, sizeof why), WH_TAINT_OOM);
    CHECK_EQ_STR(why, "build output: `gcc: fatal error: Killed signal terminated program cc1`");
    const char *t = "test.c:9: malloc: Cannot allocate memory\n";
    wh_taint_step_t tt = {WH_STEP_TEST, &rr, t, strlen(t), NULL};
    CHECK_EQ_INT(wh_taint_classify(&tt, why, sizeof why), WH_TAINT_NONE);
    /* A long line is quoted with a cap. */
    char longline[600];
    memset(longline, 'x', sizeof longline);
    memcpy(longline + 500, " ENOSPC", 7);
    longline[507] = '\0';
    wh_taint_step_t lt = {WH_STEP_SETUP, NULL, longline, strlen(longline), NULL};
    CHECK_EQ_INT(wh_taint_classify(&lt, why, sizeof why), WH_TAINT_NO_SPACE);
    CHECK_EQ_INT(strlen(why), strlen("setup output: ``") + 200 + 3);
    /* A group member that outlived its kill (the runner says so; a real
     * one needs a process stuck in the kernel). */
    wh_run_result_t stuck = {0};
    stuck.timed_out = 1;
    stuck.group_lingered = 1;
    wh_taint_step_t sk = {WH_STEP_TEST, &stuck, NULL, 0, NULL};
    CHECK_EQ_INT(wh_taint_classify(&sk, why, sizeof why), WH_TAINT_STUCK);
    CHECK_EQ_STR(why, "test: a process of its group outlived SIGKILL (stuck in the kernel)");
}

static void test_disk(void)
{
    char why[512];
    CHECK_EQ_INT(wh_taint_disk(s_dir, why, sizeof why), WH_TAINT_NONE);
    CHECK_EQ_INT(wh_taint_disk("/no/such/folder", why, sizeof why), WH_TAINT_NONE);
    if (geteuid() != 0) {
        fprintf(stderr, "skip test_disk tmpfs part: not root\n");
        return;
    }
    char *mnt = wh_path_join(s_dir, "small");
    wh_mkdir_p(mnt);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=128k") < 0) {
        fprintf(stderr, "skip test_disk tmpfs part: mount: %s\n", strerror(errno));
        free(mnt);
        return;
    }
    /* 128 KiB free is less than a workspace needs. */
    CHECK_EQ_INT(wh_taint_disk(mnt, why, sizeof why), WH_TAINT_NO_SPACE);
    char *want = wh_strdup_printf("the file system of %s is full (128 KiB free)", mnt);
    CHECK_EQ_STR(why, want);
    free(want);
    umount(mnt);
    CHECK(mount("tmpfs", mnt, "tmpfs", 0, "size=2m") == 0);
    CHECK_EQ_INT(wh_taint_disk(mnt, why, sizeof why), WH_TAINT_NONE);
    /* Filled up: full. */
    char *f = wh_path_join(mnt, "filler");
    char *cmd = wh_strdup_printf("head -c 3M /dev/zero > '%s'", f);
    CHECK(system(cmd) != 0);
    CHECK_EQ_INT(wh_taint_disk(mnt, why, sizeof why), WH_TAINT_NO_SPACE);
    umount(mnt);
    free(cmd);
    free(f);
    free(mnt);
}

int main(void)
{
    if (!mkdtemp(s_dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN_TEST(test_enospc_text);
    RUN_TEST(test_missing_tool);
    RUN_TEST(test_signals);
    RUN_TEST(test_oom_build_only);
    RUN_TEST(test_disk);
    wh_rm_rf(s_dir);
    TEST_MAIN_END();
}
