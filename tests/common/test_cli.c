/*
 * test_cli — the option parser (common/cli.c) and the table's invariants:
 * --opt=value and --opt value, short letters alone, joined and clustered,
 * operands and "--", missing values, unknown and abbreviated options, and
 * the exact error lines.
 */
#include "cli.h"
#include "wh_common.h"
#include "wh_test.h"

#include <unistd.h>

/* One parse: every option as "name=value" or "name", joined by spaces;
 * then "| pos..." and "-- extra..." when present. The error line (stderr)
 * goes to err. Returns 1 (parsed), or -(exit + 1) when wh_cli_next said to
 * exit. */
static int s_parse(const char *prog, const char *cmd, char *out, size_t outsz, char *err,
                   size_t errsz, int argc, char **argv)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *tmp = tmpfile();
    dup2(fileno(tmp), 2);
    wh_cli_t c;
    int rc;
    size_t k = 0;
    out[0] = '\0';
    wh_cli_begin(&c, prog, cmd, argc, argv);
    while ((rc = wh_cli_next(&c)) > 0)
        k += (size_t)snprintf(out + k, outsz - k, "%s%s%s%s", k ? " " : "", c.opt->name,
                              c.arg ? "=" : "", c.arg ? c.arg : "");
    if (rc == 0) {
        for (int i = 0; i < c.npos; i++)
            k += (size_t)snprintf(out + k, outsz - k, "%s%s", i ? " " : " | ", c.pos[i]);
        if (c.dash)
            k += (size_t)snprintf(out + k, outsz - k, " --");
        for (int i = 0; i < c.nextra; i++)
            k += (size_t)snprintf(out + k, outsz - k, " %s", c.extra[i]);
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(err, 1, errsz - 1, tmp);
    err[n] = '\0';
    if (n && err[n - 1] == '\n')
        err[n - 1] = '\0';
    fclose(tmp);
    int ret = rc < 0 ? -(c.exit + 1) : 1;
    wh_cli_end(&c);
    return ret;
}

#define PARSE(prog, cmd, ...)                                                                \
    ({                                                                                       \
        char *av_[] = {__VA_ARGS__};                                                         \
        s_parse(prog, cmd, out, sizeof out, err, sizeof err, (int)(sizeof av_ / sizeof av_[0]), \
                av_);                                                                        \
    })

static void test_values(void)
{
    char out[512], err[512];
    CHECK_EQ_INT(PARSE("whittle", "reduce", "--jobs=4", "--test", "t1", "-j", "3", "-j2"), 1);
    CHECK_EQ_STR(out, "jobs=4 test=t1 jobs=3 jobs=2");
    CHECK_EQ_STR(err, "");
    /* A value may start with '-' and hold '='. */
    CHECK_EQ_INT(PARSE("whittle", "reduce", "--run", "-x a=b", "--failure-regex=(?<m>x=y)"), 1);
    CHECK_EQ_STR(out, "run=-x a=b failure-regex=(?<m>x=y)");
    /* Clustered short letters: flags then one taking the rest as its value. */
    CHECK_EQ_INT(PARSE("whittle", "reduce", "-vvj8", "-pbuild"), 1);
    CHECK_EQ_STR(out, "verbose verbose jobs=8 compdb=build");
    CHECK_EQ_INT(PARSE("whittle-node", NULL, "--connect=tcp://h:1", "--slots", "4", "-v"), 1);
    CHECK_EQ_STR(out, "connect=tcp://h:1 slots=4 verbose");
}

static void test_operands(void)
{
    char out[512], err[512];
    /* Operands anywhere before "--", in order; everything after "--" is extra. */
    CHECK_EQ_INT(PARSE("whittle", "inspect", "t.c", "--test", "a", "--", "-Iinc", "--test"), 1);
    CHECK_EQ_STR(out, "test=a | t.c -- -Iinc --test");
    CHECK_EQ_INT(PARSE("whittle", "reduce", "--jobs", "2", "--"), 1);
    CHECK_EQ_STR(out, "jobs=2 --");
    CHECK_EQ_INT(PARSE("whittle", "submit", "--cluster", "tcp://h:1", "f.json"), 1);
    CHECK_EQ_STR(out, "cluster=tcp://h:1 | f.json");
    CHECK_EQ_INT(PARSE("whittle", "submit", "a.json", "b.json"), -3);
    CHECK_EQ_STR(err, "whittle: error: unexpected argument 'b.json' for whittle submit");
    CHECK_EQ_INT(PARSE("whittle", "status", "--", "x"), -3);
    CHECK_EQ_STR(err, "whittle: error: whittle status takes no arguments after '--' (got 'x')");
}

static void test_errors(void)
{
    char out[512], err[512];
    CHECK_EQ_INT(PARSE("whittle", "reduce", "--x"), -3);
    CHECK_EQ_STR(err, "whittle: error: unknown option '--x' for whittle reduce (see whittle reduce --help)");
    CHECK_EQ_INT(PARSE("whittle", "reduce", "--x=3"), -3);
    CHECK_EQ_STR(err, "whittle: error: unknown option '--x' for whittle reduce (see whittle reduce --help)");
    /* Abbreviations are refused, even unique ones. */
    CHECK_EQ_INT(PARSE("whittle", "reduce", "--proj", "p"), -3);
    CHECK_EQ_STR(err, "whittle: error: unknown option '--proj' for whittle reduce (did you mean --project? "
                      "see whittle reduce --help)");
    /* A typo names the option it most likely meant. */
    CHECK_EQ_INT(PARSE("whittle", "reduce", "--projct", "p"), -3);
    CHECK_EQ_STR(err, "whittle: error: unknown option '--projct' for whittle reduce (did you mean --project? "
                      "see whittle reduce --help)");
    CHECK_EQ_INT(PARSE("whittle", "reduce", "--framwork=unity"), -3);
    CHECK_EQ_STR(err, "whittle: error: unknown option '--framwork' for whittle reduce (did you mean "
                      "--framework? see whittle reduce --help)");
    CHECK(wh_suggest("reduc", (const char *const[]){"inspect", "reduce", "report"}, 3) != NULL);
    CHECK_EQ_STR(wh_suggest("reduc", (const char *const[]){"inspect", "reduce", "report"}, 3), "reduce");
    CHECK(wh_suggest("xyz", (const char *const[]){"inspect", "reduce"}, 2) == NULL);
    /* A swap of two neighbours is one edit: a 4-letter field, a long test name. */
    CHECK_EQ_STR(wh_suggest("tset", (const char *const[]){"project", "test", "setup"}, 3), "test");
    CHECK_EQ_STR(wh_suggest("test_added_item_is_in_crat",
                            (const char *const[]){"test_added_item_is_in_cart",
                                                  "test_empty_cart_has_no_items"}, 2),
                 "test_added_item_is_in_cart");
    CHECK(wh_suggest("tsets", (const char *const[]){"test"}, 1) == NULL);
    CHECK_EQ_INT(PARSE("whittle", "reduce", "-vz"), -3);
    CHECK_EQ_STR(err, "whittle: error: unknown option '-z' for whittle reduce (see whittle reduce --help)");
    /* An option of another command is unknown here. */
    CHECK_EQ_INT(PARSE("whittle", "status", "--jobs", "2"), -3);
    CHECK_EQ_STR(err, "whittle: error: unknown option '--jobs' for whittle status (see whittle status --help)");
    CHECK_EQ_INT(PARSE("whittle-coordinator", NULL, "--slots", "2"), -3);
    CHECK_EQ_STR(err, "whittle-coordinator: error: unknown option '--slots' for whittle-coordinator "
                      "(see whittle-coordinator --help)");
    /* Missing values. */
    CHECK_EQ_INT(PARSE("whittle", "reduce", "--test", "a", "--project"), -3);
    CHECK_EQ_STR(out, "test=a");
    CHECK_EQ_STR(err, "whittle: error: --project needs a value");
    CHECK_EQ_INT(PARSE("whittle", "reduce", "-v", "-j"), -3);
    CHECK_EQ_STR(err, "whittle: error: -j needs a value");
    CHECK_EQ_INT(PARSE("whittle-node", NULL, "--slots"), -3);
    CHECK_EQ_STR(err, "whittle-node: error: --slots needs a value");
    /* A flag given a value. */
    CHECK_EQ_INT(PARSE("whittle", "inspect", "--list=yes"), -3);
    CHECK_EQ_STR(err, "whittle: error: --list takes no value (got '--list=yes')");
    CHECK_EQ_INT(PARSE("whittle", "inspect", "--lis=yes"), -3);
    CHECK_EQ_STR(err, "whittle: error: unknown option '--lis' for whittle inspect (did you mean --list? see "
                      "whittle inspect --help)");
}

static void test_builtin(void)
{
    char out[512], err[512];
    /* --help and --version print on stdout and exit 0 (the text is e2e_cli's). */
    fflush(stdout);
    int saved = dup(1);
    FILE *null = fopen("/dev/null", "w");
    dup2(fileno(null), 1);
    int h = PARSE("whittle", "reduce", "--jobs", "2", "--help", "--x");
    int v = PARSE("whittle-coordinator", NULL, "--version");
    int s = PARSE("whittle", "group", "-h");
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    fclose(null);
    CHECK_EQ_INT(h, -1);
    CHECK_EQ_INT(v, -1);
    CHECK_EQ_INT(s, -1);
    CHECK_EQ_STR(err, "");
    CHECK(strncmp(wh_cli_version(), "0.3.0", 5) == 0);
}

/* No command takes two rows with one long name or one short letter; every
 * row belongs to a command; names are lower-case words joined by '-'. */
static void test_table(void)
{
    int rows = 0;
    unsigned known = 0;
    for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog; c++) {
        CHECK((known & c->bit) == 0); /* one bit per command */
        known |= c->bit;
    }
    for (const wh_cli_opt_t *o = wh_cli_opts; o->name; o++, rows++) {
        CHECK(o->cmds == WH_CLI_ALL || (o->cmds != 0 && (o->cmds & ~known) == 0));
        CHECK(o->help && *o->help && o->help[strlen(o->help) - 1] == '.');
        CHECK(strspn(o->name, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(o->name));
        for (const wh_cli_opt_t *p = wh_cli_opts; p < o; p++) {
            if (!(p->cmds & o->cmds))
                continue;
            if (strcmp(p->name, o->name) == 0 || (o->shortopt && p->shortopt == o->shortopt)) {
                fprintf(stderr, "rows --%s and --%s clash\n", p->name, o->name);
                CHECK(0);
            }
        }
    }
    CHECK(rows < WH_CLI_MAX_OPTS * 4);
    for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog; c++) {
        int n = 0;
        for (const wh_cli_opt_t *o = wh_cli_opts; o->name; o++)
            n += (o->cmds & c->bit) != 0;
        CHECK(n <= WH_CLI_MAX_OPTS);
        CHECK(wh_cli_cmd(c->prog, c->name) == c);
    }
    CHECK(wh_cli_cmd("whittle", "nosuch") == NULL);
}

int main(void)
{
    RUN_TEST(test_values);
    RUN_TEST(test_operands);
    RUN_TEST(test_errors);
    RUN_TEST(test_builtin);
    RUN_TEST(test_table);
    TEST_MAIN_END();
}
