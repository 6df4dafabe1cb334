/*
 * Tests of coordinator/job for the oracle's options: validation of the
 * console preset's regexes and of pass evidence, the JSON round trip, and
 * the job identity (the cache key's prefix) moving with every option that
 * changes a verdict.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"
#include "wh_test.h"

/* A valid console job on the console_silent fixture. */
static void s_job(wh_job_t *j, const char *fw)
{
    const char *src = getenv("WH_SOURCE_DIR");
    wh_job_init(j);
    j->project = wh_strdup_printf("%s/tests/fixtures/console_silent", src ? src : ".");
    j->file = strdup("tests/test_stats.c");
    j->test = strdup("test_summary");
    j->run = strdup("./test_stats {test}");
    j->framework = strdup(fw);
    j->out = strdup("/tmp/whittle-test-job-out");
    if (!strcmp(fw, "console"))
        j->failure_regex = strdup("^(?<file>\\w+\\.c):(?<line>\\d+): (?<message>.*)$");
}

/* wh_job_validate's message for j (malloc'ed), NULL when it is valid. */
static char *s_validate(wh_job_t *j)
{
    char *err = NULL;
    int rc = wh_job_validate(j, &err);
    CHECK((rc == 0) == (err == NULL));
    return err;
}

static void test_validate(void)
{
    wh_job_t j;
    s_job(&j, "console");
    char *err = s_validate(&j);
    CHECK(err == NULL);
    free(err);
    wh_job_clear(&j);

    s_job(&j, "console");
    free(j.failure_regex);
    j.failure_regex = strdup("(?<file>\\d+");
    err = s_validate(&j);
    CHECK_EQ_STR(err, "bad --failure-regex '(?<file>\\d+': missing closing parenthesis at offset 11");
    free(err);
    wh_job_clear(&j);

    s_job(&j, "console");
    j.message_continuation = strdup("[unclosed");
    err = s_validate(&j);
    CHECK(err && strncmp(err, "bad --message-continuation '[unclosed': missing terminating ]", 61) == 0);
    free(err);
    wh_job_clear(&j);

    s_job(&j, "cmocka");
    j.message_continuation = strdup("^\\s");
    err = s_validate(&j);
    CHECK_EQ_STR(err, "--message-continuation is for --framework console, not 'cmocka'");
    free(err);
    wh_job_clear(&j);

    s_job(&j, "junit");
    j.pass_on_exit0 = 1;
    err = s_validate(&j);
    CHECK_EQ_STR(err, "--pass-on-exit0 is for frameworks that read the console (console, plain), not 'junit'");
    free(err);
    wh_job_clear(&j);

    s_job(&j, "plain");
    j.pass_on_exit0 = 1;
    err = s_validate(&j);
    CHECK(err == NULL);
    free(err);
    wh_job_clear(&j);

    /* A reference needs evidence of a pass. */
    s_job(&j, "console");
    j.reference = strdup(j.project);
    err = s_validate(&j);
    CHECK_EQ_STR(err, "--reference with --framework console needs evidence of a pass: "
                      "--pass-regex RE or --pass-on-exit0");
    free(err);
    j.pass_on_exit0 = 1;
    err = s_validate(&j);
    CHECK(err == NULL);
    free(err);
    wh_job_clear(&j);
}

static void test_json_and_identity(void)
{
    wh_job_t a, b;
    s_job(&a, "console");
    char id0[65], id1[65], id2[65];
    wh_job_identity(&a, "snap", id0);
    a.pass_on_exit0 = 1;
    wh_job_identity(&a, "snap", id1);
    a.message_continuation = strdup("^\\s+\\S");
    wh_job_identity(&a, "snap", id2);
    CHECK(strcmp(id0, id1) != 0 && strcmp(id1, id2) != 0 && strcmp(id0, id2) != 0);

    char *js = wh_job_to_json(&a);
    json_t *o = json_loads(js, 0, NULL);
    wh_job_init(&b);
    char *err = NULL;
    CHECK_EQ_INT(wh_job_from_json(&b, o, &err), 0);
    CHECK_EQ_STR(b.message_continuation, "^\\s+\\S");
    CHECK_EQ_INT(b.pass_on_exit0, 1);
    char idb[65];
    wh_job_identity(&b, "snap", idb);
    CHECK_EQ_STR(idb, id2);
    json_decref(o);
    free(js);
    free(err);
    wh_job_clear(&a);
    wh_job_clear(&b);
}

/* ub_guard: on by default, travels in the job JSON both ways, not in the
 * identity (a guard's word is never cached), only "on" or "off". */
static void test_ub_guard_json(void)
{
    wh_job_t a, b;
    s_job(&a, "console");
    CHECK_EQ_INT(a.ub_guard, 1);
    char id_on[65], id_off[65];
    wh_job_identity(&a, "snap", id_on);
    a.ub_guard = 0;
    wh_job_identity(&a, "snap", id_off);
    CHECK_EQ_STR(id_on, id_off);
    char *js = wh_job_to_json(&a);
    CHECK(js && strstr(js, "\"ub_guard\":\"off\"") != NULL);
    json_t *o = json_loads(js, 0, NULL);
    wh_job_init(&b);
    char *err = NULL;
    CHECK_EQ_INT(wh_job_from_json(&b, o, &err), 0);
    CHECK_EQ_INT(b.ub_guard, 0);
    wh_job_clear(&b);
    wh_job_init(&b);
    json_object_set_new(o, "ub_guard", json_string("on"));
    CHECK_EQ_INT(wh_job_from_json(&b, o, &err), 0);
    CHECK_EQ_INT(b.ub_guard, 1);
    wh_job_clear(&b);
    wh_job_init(&b);
    json_object_set_new(o, "ub_guard", json_true());
    CHECK_EQ_INT(wh_job_from_json(&b, o, &err), WH_EINVAL);
    CHECK_EQ_STR(err, "field 'ub_guard' must be \"on\" or \"off\"");
    json_decref(o);
    free(js);
    free(err);
    wh_job_clear(&a);
    wh_job_clear(&b);
}

/* A submitted job's run folder: under the coordinator's runs folder, or
 * refused (issue 10). */
static void s_place(const char *out, int want_rc, const char *want)
{
    wh_job_t j;
    wh_job_init(&j);
    j.out = out ? strdup(out) : NULL;
    char *err = NULL;
    CHECK_EQ_INT(wh_job_place_runs(&j, "/srv/runs", &err), want_rc);
    CHECK_EQ_STR(want_rc ? err : j.out, want);
    free(err);
    wh_job_clear(&j);
}

static void test_place_runs(void)
{
    s_place(NULL, 0, "/srv/runs");
    s_place("team/a", 0, "/srv/runs/team/a");
    s_place("/etc/cron.d", WH_EINVAL,
            "job \"out\" '/etc/cron.d' is an absolute path: run folders live under the "
            "coordinator's --runs folder '/srv/runs' (give a relative name)");
    const char *bad[] = {"..", "../x", "a/../../x", "./x", "a//b", "a/", "", NULL};
    for (int i = 0; bad[i]; i++) {
        char *want = wh_strdup_printf("job \"out\" '%s' is not a plain relative name under the "
                                      "coordinator's --runs folder '/srv/runs' (no '..', '.' or "
                                      "empty parts)", bad[i]);
        s_place(bad[i], WH_EINVAL, want);
        free(want);
    }
}

/* The "git" object of a snapshot job: round trip, patch bytes intact, and
 * the refusals of a malformed one. */
static void test_git_json(void)
{
    const char *src =
        "{\"project\":\"/p\",\"file\":\"t.c\",\"test\":\"t\",\"run\":\"./t\",\"git\":{"
        "\"url\":\"git://h/p.git\",\"rev\":\"89abcdef0123456789abcdef0123456789abcdef\","
        "\"subdir\":\"sub\",\"reference\":\"0123456789abcdef0123456789abcdef01234567\","
        "\"patch_b64\":\"AP8KYQ==\"}}";
    json_t *o = json_loads(src, 0, NULL);
    wh_job_t j;
    wh_job_init(&j);
    char *err = NULL;
    CHECK_EQ_INT(wh_job_from_json(&j, o, &err), 0);
    json_decref(o);
    CHECK_EQ_STR(j.git_url, "git://h/p.git");
    CHECK_EQ_STR(j.git_subdir, "sub");
    CHECK_EQ_INT(j.git_patch_len, 4);
    CHECK(j.git_patch && !memcmp(j.git_patch, "\x00\xff\na", 4));
    char *s = wh_job_to_json(&j);
    wh_job_t k;
    wh_job_init(&k);
    o = json_loads(s, 0, NULL);
    CHECK_EQ_INT(wh_job_from_json(&k, o, &err), 0);
    json_decref(o);
    CHECK_EQ_STR(k.git_rev, j.git_rev);
    CHECK_EQ_STR(k.git_reference, "0123456789abcdef0123456789abcdef01234567");
    CHECK(k.git_patch_len == 4 && !memcmp(k.git_patch, j.git_patch, 4));
    wh_job_t c;
    CHECK_EQ_INT(wh_job_copy(&c, &k), 0);
    CHECK(c.git_patch != k.git_patch && c.git_patch_len == 4 && !memcmp(c.git_patch, "\x00\xff\na", 4));
    wh_job_clear(&c);
    wh_job_clear(&k);
    wh_job_clear(&j);
    free(s);
    const char *bad[][2] = {
        {"{\"git\":{\"url\":\"u\",\"rev\":\"r\",\"extra\":1}}", "unknown field 'git.extra'"},
        {"{\"git\":{\"url\":\"u\"}}", "field 'git' needs 'url' and 'rev'"},
        {"{\"git\":{\"url\":\"u\",\"rev\":\"r\",\"patch_b64\":\"@@@@\"}}",
         "field 'git.patch_b64' is not valid base64"},
        {"{\"git\":[1]}", "field 'git' must be an object"},
        {"{\"git\":{\"url\":7,\"rev\":\"r\"}}", "field 'git.url' must be a string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o = json_loads(bad[i][0], 0, NULL);
        wh_job_init(&j);
        err = NULL;
        CHECK(wh_job_from_json(&j, o, &err) != 0);
        CHECK_EQ_STR(err, bad[i][1]);
        free(err);
        wh_job_clear(&j);
        json_decref(o);
    }
}

/* "jobs": "auto" in a whittle.json means what --jobs auto means: one slot per
 * online core of the machine reading it; another word names the field. */
static void test_jobs_auto(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int want = cores < 1 ? 1 : cores > 1024 ? 1024 : (int)cores;
    json_t *o = json_loads("{\"jobs\":\"auto\"}", 0, NULL);
    wh_job_t j;
    wh_job_init(&j);
    char *err = NULL;
    CHECK_EQ_INT(wh_job_from_json(&j, o, &err), 0);
    CHECK_EQ_INT(j.jobs, want);
    CHECK_EQ_INT(wh_job_cores(), want);
    wh_job_clear(&j);
    json_decref(o);
    o = json_loads("{\"jobs\":\"many\"}", 0, NULL);
    wh_job_init(&j);
    CHECK(wh_job_from_json(&j, o, &err) != 0);
    CHECK_EQ_STR(err ? err : "(none)", "field 'jobs' must be an integer in 1..1024 or \"auto\"");
    free(err);
    wh_job_clear(&j);
    json_decref(o);
}

/* The header guess never puts a project's copy of a standard header in
 * front of the system's (aws-c-common: include/aws/common/stdbool.h made
 * every #include <stdbool.h> find it): not from the folder scan, not from
 * the test's own <stdbool.h>. */
static void test_guess_skips_std_headers(void)
{
    char tmp[] = "/tmp/whittle-test-guess.XXXXXX";
    CHECK(mkdtemp(tmp) != NULL);
    const char *files[][2] = {
        {"include/lib/stdbool.h", "#define bool _Bool\n"},
        {"include/lib/api.h", "int api(void);\n"},
        {"src/impl.h", "int impl(void);\n"},
        /* abseil's absl/base/internal/endian.h: glibc has <endian.h> too */
        {"base/internal/endian.h", "int swap(int);\n"},
        {"tests/t.c", "#include <stdbool.h>\n#include \"lib/api.h\"\nvoid test_t(void) {}\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *p = wh_path_join(tmp, files[i][0]);
        char *d = strdup(p);
        *strrchr(d, '/') = '\0';
        CHECK(wh_mkdir_p(d) == 0);
        CHECK(wh_write_file(p, files[i][1], strlen(files[i][1])) == 0);
        free(d);
        free(p);
    }
    wh_job_t j;
    wh_job_init(&j);
    j.project = strdup(tmp);
    j.file = strdup("tests/t.c");
    wh_job_guess_includes(&j);
    char *inc = wh_strdup_printf("-I%s/include", tmp), *lib = wh_strdup_printf("-I%s/include/lib", tmp);
    char *src = wh_strdup_printf("-I%s/src", tmp);
    char *internal = wh_strdup_printf("-I%s/base/internal", tmp);
    int has_inc = 0, has_lib = 0, has_src = 0, has_internal = 0;
    for (int i = 0; i < j.nargs; i++) {
        has_inc |= strcmp(j.args[i], inc) == 0;
        has_lib |= strcmp(j.args[i], lib) == 0;
        has_src |= strcmp(j.args[i], src) == 0;
        has_internal |= strcmp(j.args[i], internal) == 0;
    }
    CHECK(has_inc);
    CHECK(has_src);
    CHECK(!has_lib);
    CHECK(!has_internal || access("/usr/include/endian.h", F_OK) != 0);
    free(inc), free(lib), free(src), free(internal);
    wh_job_clear(&j);
    wh_rm_rf(tmp);
}

int main(void)
{
    RUN_TEST(test_validate);
    RUN_TEST(test_json_and_identity);
    RUN_TEST(test_ub_guard_json);
    RUN_TEST(test_place_runs);
    RUN_TEST(test_git_json);
    RUN_TEST(test_jobs_auto);
    RUN_TEST(test_guess_skips_std_headers);
    TEST_MAIN_END();
}
