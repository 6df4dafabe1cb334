/*
 * suite_cmd — `whittle suite --kills FILE --method ilp|diff|fast|all
 * [--potential] [--seed N] [--out suite.json]`. See suite_cmd.h.
 */
#include "suite_cmd.h"

#include "cli.h"
#include "suite.h"
#include "wh_common.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *kills, *out;
    int methods[3];
    int potential;
    unsigned seed;
} s_opts_t;

static int s_fail(int code, const char *msg)
{
    fprintf(stderr, "whittle: error: %s\n", msg);
    return code;
}

static double s_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int s_parse(int argc, char **argv, s_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", "suite", argc, argv);
    while ((rc = wh_cli_next(&c)) > 0) {
        const char *v = c.arg;
        long n;
        if (wh_cli_is(&c, "kills"))
            o->kills = v;
        else if (wh_cli_is(&c, "out"))
            o->out = v;
        else if (wh_cli_is(&c, "potential"))
            o->potential = 1;
        else if (wh_cli_is(&c, "seed")) {
            if (wh_parse_long(v, 1, 0x7fffffff, &n) != 0) {
                fprintf(stderr, "whittle: error: --seed wants a number from 1 to 2147483647, not '%s'\n", v);
                return 2;
            }
            o->seed = (unsigned)n;
        } else if (wh_cli_is(&c, "method")) {
            int all = !strcmp(v, "all");
            int ilp = all || !strcmp(v, "ilp"), diff = all || !strcmp(v, "diff");
            int fast = all || !strcmp(v, "fast");
            if (!ilp && !diff && !fast) {
                fprintf(stderr, "whittle: error: unknown --method '%s' (ilp, diff, fast or all)\n", v);
                return 2;
            }
            o->methods[WH_SUITE_ILP] |= ilp;
            o->methods[WH_SUITE_DIFF] |= diff;
            o->methods[WH_SUITE_FAST] |= fast;
        }
    }
    if (rc < 0)
        return c.exit ? c.exit : -1;
    if (!o->kills)
        return s_fail(2, "suite needs --kills FILE");
    if (!o->methods[0] && !o->methods[1] && !o->methods[2])
        o->methods[0] = o->methods[1] = o->methods[2] = 1;
    return 0;
}

/* Runs one method, prints its row and adds it to arr. */
static int s_run(const wh_kills_t *k, const s_opts_t *o, wh_suite_method_t m, json_t *arr)
{
    size_t nt = wh_kills_tests(k);
    unsigned char *sel = calloc(nt + 1, 1);
    if (!sel)
        return s_fail(1, "out of memory");
    double t0 = s_cpu_ms();
    int rc = wh_suite_select(k, m, o->potential, o->seed, sel);
    double ms = s_cpu_ms() - t0;
    if (rc < 0) {
        free(sel);
        fprintf(stderr, "whittle: error: %s found no answer: %s\n", wh_suite_method_name(m), wh_strerror(rc));
        return 1;
    }
    size_t size = 0, cov = wh_suite_covered(k, sel, o->potential);
    json_t *tests = json_array();
    printf("%-5s", wh_suite_method_name(m));
    for (size_t t = 0; t < nt; t++)
        if (sel[t])
            size++, json_array_append_new(tests, json_string(wh_kills_test_name(k, t)));
    printf(" %4zu %4zu/%-4zu %9.3f ", size, cov, wh_suite_covered(k, NULL, o->potential), ms);
    for (size_t t = 0, first = 1; t < nt; t++)
        if (sel[t])
            printf("%s%s", first ? "" : ",", wh_kills_test_name(k, t)), first = 0;
    printf("\n");
    json_array_append_new(arr, json_pack("{s:s,s:I,s:I,s:f,s:o}", "method", wh_suite_method_name(m),
                                         "size", (json_int_t)size, "covered", (json_int_t)cov,
                                         "cpu_ms", ms, "tests", tests));
    free(sel);
    return 0;
}

int wh_suite_cmd(int argc, char **argv)
{
    s_opts_t o;
    int rc = s_parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc; /* -1: --help or --version printed */
    char *err = NULL;
    wh_kills_t *k = wh_kills_load(o.kills, &err);
    if (!k) {
        rc = s_fail(1, err ? err : "out of memory");
        free(err);
        return rc;
    }
    printf("kill matrix: %zu mutants, %zu tests, %zu killed (%s)\n", wh_kills_mutants(k), wh_kills_tests(k),
           wh_suite_covered(k, NULL, o.potential), o.potential ? "definite+potential" : "definite");
    printf("%-5s %4s %9s %9s %s\n", "meth", "size", "covered", "cpu_ms", "tests");
    json_t *arr = json_array();
    for (int m = 0; m < 3 && rc == 0; m++)
        if (o.methods[m])
            rc = s_run(k, &o, (wh_suite_method_t)m, arr);
    if (rc == 0 && o.out) {
        json_t *doc = json_pack("{s:s,s:I,s:I,s:I,s:b,s:o}", "kills", o.kills, "mutants",
                                (json_int_t)wh_kills_mutants(k), "tests", (json_int_t)wh_kills_tests(k),
                                "killed", (json_int_t)wh_suite_covered(k, NULL, o.potential), "potential",
                                o.potential, "methods", json_incref(arr));
        char *js = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (!js || wh_write_file(o.out, js, strlen(js)) < 0) {
            fprintf(stderr, "whittle: error: cannot write '%s'\n", o.out);
            rc = 1;
        }
        free(js);
        json_decref(doc);
    }
    json_decref(arr);
    wh_kills_destroy(&k);
    return rc;
}
