/*
 * judge — the synthetic fixture's compiler and test runner in one small
 * process, so that a candidate costs its fixed latency plus two process
 * starts (the node's `sh -c` execs straight into it) and nothing else:
 * on a 2-core machine a shell script with sleep, grep or awk costs tens of
 * milliseconds of CPU per candidate, which would swamp what the scaling
 * benchmark measures.
 *
 *   judge build [SECONDS]   sleeps SECONDS (default 0.2; the "incremental
 *                           build"), then fails like a compiler when a
 *                           statement uses a name whose declaration the
 *                           candidate removed.
 *   judge run               judges the candidate and writes a JUnit XML
 *                           report for $WHITTLE_TEST to $WHITTLE_REPORT.
 *
 * Both read tests/test_synth.c from the current folder (the workspace root).
 * Only comments inside test_synth's body are markers; their meaning is at
 * the top of tests/test_synth.c. whittle renders a candidate by blanking the
 * removed statements' bytes, so a removed statement's markers are gone and
 * every other marker keeps its line.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FILE_PATH "tests/test_synth.c"
#define N_REQUIRED 7
#define MAX_NAMES 64
#define NAME_LEN 32

typedef struct {
    char name[NAME_LEN];
    int line; /* first line it appears on */
} name_t;

typedef struct {
    name_t decl[MAX_NAMES], use[MAX_NAMES], tag[MAX_NAMES];
    int ndecl, nuse, ntag;
} marks_t;

static int find(const name_t *v, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v[i].name, s) == 0)
            return i;
    return -1;
}

static void add(name_t *v, int *n, const char *s, size_t len, int line)
{
    char buf[NAME_LEN];
    if (len == 0 || len >= NAME_LEN || *n >= MAX_NAMES)
        return;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (find(v, *n, buf) >= 0)
        return;
    strcpy(v[*n].name, buf);
    v[*n].line = line;
    (*n)++;
}

/* One marker comment's words: decl:NAME, use:A,B, or a tag (R1, FAIL, ...). */
static void s_parse_comment(marks_t *m, const char *s, size_t len, int line)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        size_t j = i;
        while (j < len && s[j] != ' ' && s[j] != '\t')
            j++;
        const char *w = s + i;
        size_t wl = j - i;
        if (wl > 5 && strncmp(w, "decl:", 5) == 0) {
            add(m->decl, &m->ndecl, w + 5, wl - 5, line);
        } else if (wl > 4 && strncmp(w, "use:", 4) == 0) {
            for (size_t a = 4; a < wl;) {
                size_t b = a;
                while (b < wl && w[b] != ',')
                    b++;
                add(m->use, &m->nuse, w + a, b - a, line);
                a = b + 1;
            }
        } else if (wl) {
            add(m->tag, &m->ntag, w, wl, line);
        }
        i = j;
    }
}

static int s_read_marks(marks_t *m)
{
    FILE *f = fopen(FILE_PATH, "r");
    if (!f) {
        fprintf(stderr, "judge: cannot open %s\n", FILE_PATH);
        return -1;
    }
    memset(m, 0, sizeof *m);
    char line[4096];
    int lineno = 0, inbody = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!inbody) {
            inbody = strncmp(line, "void test_synth(void)", 21) == 0;
            continue;
        }
        if (line[0] == '}')
            break;
        for (const char *p = line; (p = strstr(p, "/*")) != NULL;) {
            const char *e = strstr(p + 2, "*/");
            if (!e)
                break;
            s_parse_comment(m, p + 2, (size_t)(e - p - 2), lineno);
            p = e + 2;
        }
    }
    fclose(f);
    return 0;
}

static int s_build(const char *seconds)
{
    double s = seconds ? atof(seconds) : 0.2;
    if (s > 0) {
        struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    marks_t m;
    if (s_read_marks(&m))
        return 2;
    int bad = 0;
    for (int i = 0; i < m.nuse; i++)
        if (find(m.decl, m.ndecl, m.use[i].name) < 0) {
            fprintf(stderr, "%s:%d: error: '%s' undeclared (first use in this function)\n",
                    FILE_PATH, m.use[i].line, m.use[i].name);
            bad = 1;
        }
    return bad;
}

static int s_run(void)
{
    const char *test = getenv("WHITTLE_TEST");
    const char *report = getenv("WHITTLE_REPORT");
    if (!report || !*report) {
        fprintf(stderr, "judge: WHITTLE_REPORT is not set\n");
        return 2;
    }
    if (!test || !*test)
        test = "test_synth";
    marks_t m;
    if (s_read_marks(&m))
        return 2;
    FILE *r = fopen(report, "w");
    if (!r) {
        fprintf(stderr, "judge: cannot write %s\n", report);
        return 2;
    }
    int status = 0, g1 = find(m.tag, m.ntag, "G1"), x1 = find(m.tag, m.ntag, "X1");
    int fail = find(m.tag, m.ntag, "FAIL");
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
          "<testsuite name=\"synth\" tests=\"1\">\n", r);
    if (strcmp(test, "test_synth") != 0) {
        /* The file's only test: any other name is missing from the report. */
        fputs("<testcase classname=\"synth\" name=\"test_synth\" time=\"0.001\"/>\n", r);
    } else if (x1 >= 0 && g1 < 0) {
        fprintf(r, "<testcase classname=\"synth\" name=\"test_synth\" time=\"0.001\">\n"
                   "<error message=\"signal 11: null pointer write\">%s:%d: Segmentation fault"
                   "</error>\n</testcase>\n", FILE_PATH, m.tag[x1].line);
        status = 1;
    } else if (fail < 0) {
        fputs("<testcase classname=\"synth\" name=\"test_synth\" time=\"0.001\"/>\n", r);
    } else {
        int missing = 0;
        for (int i = 1; i <= N_REQUIRED; i++) {
            char t[8];
            snprintf(t, sizeof t, "R%d", i);
            missing += find(m.tag, m.ntag, t) < 0;
        }
        fprintf(r, "<testcase classname=\"synth\" name=\"test_synth\" time=\"0.001\">\n"
                   "<failure message=\"total: expected 42, got %d\">%s:%d: assertion failed"
                   "</failure>\n</testcase>\n", 41 - missing, FILE_PATH, m.tag[fail].line);
        status = 1;
    }
    fputs("</testsuite>\n</testsuites>\n", r);
    if (fclose(r) != 0)
        return 2;
    return status;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "build") == 0)
        return s_build(argc >= 3 ? argv[2] : NULL);
    if (argc == 2 && strcmp(argv[1], "run") == 0)
        return s_run();
    fprintf(stderr, "usage: judge build [SECONDS] | judge run\n");
    return 2;
}
