/*
 * fw_console — presets that read the test's console output instead of a
 * machine-readable report, and the crash and sanitizer identity that every
 * preset falls back on when a test dies instead of failing.
 *
 *   console  a homegrown harness: --failure-regex (and optionally
 *            --pass-regex) with named groups test, file, line, message (and
 *            kind) is matched against the captured stdout+stderr of the run
 *            command. The harness usually cannot select one test, so the
 *            whole binary runs and the target is picked out by name.
 *   plain    assert()/abort() programs: glibc's (and musl's) assertion line
 *            on stderr; a sanitizer report or a shell's crash text; a clean
 *            run is a pass.
 *
 * Regex dialect. POSIX extended regular expressions (regcomp with
 * REG_EXTENDED | REG_NEWLINE, so `.` and `[^…]` never cross a line and `^`
 * `$` anchor at every line) as glibc implements them: bracket classes like
 * [[:digit:]] work; \w \s \b are glibc extensions and not portable. Perl
 * syntax that POSIX lacks is translated before compiling: `(?<name>…)` and
 * `(?P<name>…)` become plain groups whose index is remembered under name, and
 * `(?:…)` becomes a plain (capturing, unnamed) group. Other `(?` constructs
 * (look-around, flags) are refused by check with a one-line error. Names
 * other than test, file, line, message and kind are accepted and ignored.
 *
 * Crash identity without a report (limits). A reader sees only text, never
 * the exit status: plain and console recognize a crash from a sanitizer
 * report in the console or from the crash line a shell prints when its
 * child dies ("Segmentation fault", "Aborted", … — only when the run command
 * is a shell line that does not exec the test). A test binary that the
 * shell execs directly and that dies silently leaves no text at all; then
 * wh_evaluate, which does see the signal, names the crash (crash(SIGSEGV)).
 *
 * Sanitizer identity: wh_evaluate points ASan/UBSan at per-run log files
 * (log_path=<root>.san, the runtime appends .PID); wh_san_collect reads them
 * and wh_san_parse turns the first report into the fingerprint
 *   kind     sanitizer(<tool>,<error kind>[,READ|WRITE])
 *   location the first project frame's file.c:line
 *   message  up to three project frames, "func@file.c:line < caller@…"
 * where a project frame is one whose source file lies under the workspace
 * root (or is relative and not "../…"): libc, the sanitizer's interceptors
 * and the framework's runner (libcmocka, libcheck, gtest, reached only
 * through "(module+0x…)" frames or system paths) drop out, so the identity
 * does not depend on where the workspace is or how the runner was built.
 */
#define _GNU_SOURCE
#include "framework.h"
#include "fw_util.h"
#include "oracle.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Matches examined per read (a regex that matches every empty string of a
 * megabyte of output must still end). */
#define S_MAX_MATCHES 100000
/* Bytes of one sanitizer log read (reports are a few kilobytes). */
#define S_SAN_LOG_CAP ((size_t)1 << 20)
/* Sanitizer log files looked at per run. */
#define S_SAN_MAX_FILES 64
/* Project frames in a sanitizer identity. */
#define S_SAN_FRAMES 3

/* ---- regex with named groups ---- */

enum { S_G_TEST, S_G_FILE, S_G_LINE, S_G_MESSAGE, S_G_KIND, S_G_COUNT };
static const char *const s_group_names[S_G_COUNT] = {"test", "file", "line", "message", "kind"};

typedef struct {
    regex_t re;
    int compiled;
    int group[S_G_COUNT]; /* group index, or -1 */
    size_t nsub;
} s_rx_t;

/* Copies the ERE in src to a malloc'ed plain POSIX pattern, recording the
 * index of each known named group. On error returns NULL with *why set to a
 * static reason. */
static char *s_rx_translate(const char *src, int group[S_G_COUNT], const char **why)
{
    for (int g = 0; g < S_G_COUNT; g++)
        group[g] = -1;
    wh_buf_t b = WH_BUF_INIT;
    int idx = 0, rc = 0;
    *why = NULL;
    for (const char *p = src; *p && !rc && !*why;) {
        if (*p == '\\') {
            rc = wh_buf_append(&b, p, p[1] ? 2 : 1);
            p += p[1] ? 2 : 1;
        } else if (*p == '[') {
            /* A bracket expression: copied as is; `]` first is a literal,
             * [:class:] [.coll.] [=equiv=] are skipped whole. */
            const char *q = p + 1;
            if (*q == '^')
                q++;
            if (*q == ']')
                q++;
            while (*q && *q != ']') {
                if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
                    char close[3] = {q[1], ']', '\0'};
                    const char *e = strstr(q + 2, close);
                    q = e ? e + 2 : q + strlen(q);
                } else {
                    q++;
                }
            }
            if (!*q) {
                *why = "unterminated bracket expression";
                break;
            }
            q++;
            rc = wh_buf_append(&b, p, (size_t)(q - p));
            p = q;
        } else if (*p == '(') {
            idx++;
            if (p[1] != '?') {
                rc = wh_buf_append(&b, "(", 1);
                p++;
                continue;
            }
            const char *q = p + 2;
            if (*q == ':') {
                rc = wh_buf_append(&b, "(", 1);
                p = q + 1;
                continue;
            }
            if (*q == 'P')
                q++;
            if (*q != '<' || !(isalpha((unsigned char)q[1]) || q[1] == '_')) {
                *why = "unsupported (? group (only (?<name>…), (?P<name>…) and (?:…))";
                break;
            }
            const char *name = ++q;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            if (*q != '>') {
                *why = "unterminated group name";
                break;
            }
            size_t nl = (size_t)(q - name);
            for (int g = 0; g < S_G_COUNT; g++) {
                if (strlen(s_group_names[g]) == nl && memcmp(s_group_names[g], name, nl) == 0) {
                    if (group[g] >= 0)
                        *why = "group name used twice";
                    group[g] = idx;
                }
            }
            rc = wh_buf_append(&b, "(", 1);
            p = q + 1;
        } else {
            rc = wh_buf_append(&b, p, 1);
            p++;
        }
    }
    if (rc && !*why)
        *why = "out of memory";
    if (*why) {
        wh_buf_free(&b);
        return NULL;
    }
    return wh_buf_detach(&b);
}

/* Compiles src; on error returns WH_EINVAL and a one-line message naming
 * the option (what) and the regex. */
static int s_rx_compile(s_rx_t *rx, const char *src, const char *what, char **err)
{
    memset(rx, 0, sizeof *rx);
    const char *why = NULL;
    char *pat = s_rx_translate(src, rx->group, &why);
    if (!pat) {
        if (err)
            *err = wh_strdup_printf("bad %s '%s': %s", what, src, why);
        return WH_EINVAL;
    }
    int rc = regcomp(&rx->re, pat, REG_EXTENDED | REG_NEWLINE);
    free(pat);
    if (rc) {
        char msg[256];
        regerror(rc, &rx->re, msg, sizeof msg);
        if (err)
            *err = wh_strdup_printf("bad %s '%s': %s", what, src, msg);
        return WH_EINVAL;
    }
    rx->compiled = 1;
    rx->nsub = rx->re.re_nsub;
    return 0;
}

static void s_rx_free(s_rx_t *rx)
{
    if (rx->compiled)
        regfree(&rx->re);
    rx->compiled = 0;
}

/* The text of group g of a match at base, malloc'ed; NULL when the regex
 * has no such group or it did not take part in the match. */
static char *s_rx_group(const s_rx_t *rx, const regmatch_t *m, const char *base, int g)
{
    int i = rx->group[g];
    if (i < 0 || m[i].rm_so < 0)
        return NULL;
    return strndup(base + m[i].rm_so, (size_t)(m[i].rm_eo - m[i].rm_so));
}

/* Calls fn(arg, match, base) for each match of rx in text, in order, until
 * fn returns nonzero (which is returned). */
typedef int (*s_match_fn)(void *arg, const s_rx_t *rx, const regmatch_t *m, const char *base);

static int s_rx_each(const s_rx_t *rx, const char *text, size_t len, s_match_fn fn, void *arg)
{
    regmatch_t *m = calloc(rx->nsub + 1, sizeof *m);
    if (!m)
        return WH_ENOMEM;
    int ret = 0;
    size_t off = 0;
    for (int n = 0; off <= len && n < S_MAX_MATCHES && !ret; n++) {
        int flags = off > 0 && text[off - 1] != '\n' ? REG_NOTBOL : 0;
        if (regexec(&rx->re, text + off, rx->nsub + 1, m, flags) != 0)
            break;
        ret = fn(arg, rx, m, text + off);
        size_t adv = (size_t)m[0].rm_eo;
        if (m[0].rm_eo == m[0].rm_so)
            adv++;
        off += adv;
    }
    free(m);
    return ret;
}

/* ---- shared result helpers ---- */

static const char *s_basename(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int s_set(wh_test_result_t *out, wh_test_status_t st, const char *test, const char *kind,
                 const char *loc, const char *msg)
{
    out->status = st;
    out->fp.test = strdup(test ? test : "");
    if (st == WH_TR_FAILED) {
        out->fp.kind = strdup(kind ? kind : "assert");
        out->fp.location = strdup(loc ? loc : "");
        out->fp.message = strdup(msg ? msg : "");
        if (!out->fp.kind || !out->fp.location || !out->fp.message)
            return WH_ENOMEM;
    }
    return out->fp.test ? 0 : WH_ENOMEM;
}

/* A NUL-free copy of the console (a test may print NUL bytes). */
static char *s_console_copy(const char *console, size_t len)
{
    char *c = malloc(len + 1);
    if (!c)
        return NULL;
    if (len)
        memcpy(c, console, len);
    c[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if (!c[i])
            c[i] = ' ';
    return c;
}

/* ---- crash text ---- */

char *wh_crash_kind(int sig)
{
    const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
    if (abbrev)
        return wh_strdup_printf("crash(SIG%s)", abbrev);
    return sig > 0 ? wh_strdup_printf("crash(signal %d)", sig) : strdup("crash");
}

/* What shells print when a child dies of a signal: dash prints the bare
 * description ("Segmentation fault"), bash "sh: line 1: 123 Segmentation
 * fault (core dumped) ./t". Looked for at the start of a line, or after a
 * pid, with nothing but "(core dumped)" and the command after it. */
int wh_crash_text(const char *console, size_t len)
{
    static const struct {
        const char *text;
        int sig;
    } map[] = {
        {"Segmentation fault", SIGSEGV}, {"Aborted", SIGABRT},
        {"Bus error", SIGBUS},           {"Floating point exception", SIGFPE},
        {"Illegal instruction", SIGILL}, {"Trace/breakpoint trap", SIGTRAP},
    };
    if (!console)
        return 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && console[e] != '\n')
            e++;
        const char *l = console + i;
        size_t ll = e - i;
        for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) {
            size_t tl = strlen(map[k].text);
            const char *hit = memmem(l, ll, map[k].text, tl);
            if (!hit)
                continue;
            /* Before: line start, or "<digits> " (bash's pid). */
            int ok = hit == l;
            if (!ok && hit - l >= 2 && hit[-1] == ' ' && isdigit((unsigned char)hit[-2]))
                ok = 1;
            /* After: end, " (core dumped)", or a space and the command. */
            const char *after = hit + tl;
            if (ok && after < l + ll && *after != ' ' && *after != '\r' && *after != '(')
                ok = 0;
            if (ok)
                return map[k].sig;
        }
        i = e + 1;
    }
    return 0;
}

/* ---- sanitizer reports ---- */

static const char *s_skip_pid(const char *p, const char *end)
{
    /* "==12345==" */
    if (end - p >= 4 && p[0] == '=' && p[1] == '=') {
        const char *q = p + 2;
        while (q < end && isdigit((unsigned char)*q))
            q++;
        if (q > p + 2 && q + 1 < end && q[0] == '=' && q[1] == '=')
            return q + 2;
    }
    return p;
}

/* The first token of [s, end): up to a space, colon, paren or line end. */
static char *s_token(const char *s, const char *end)
{
    const char *q = s;
    while (q < end && *q != ' ' && *q != ':' && *q != '(' && *q != '\n' && *q != '\r')
        q++;
    return strndup(s, (size_t)(q - s));
}

/* UBSan's "runtime error: <text>" → its check name, for runtimes or
 * options that do not print it in the summary. */
static char *s_ubsan_class(const char *t, const char *end)
{
    if (!t || !end || end <= t)
        return strdup("runtime-error");
    static const struct {
        const char *prefix, *name;
    } map[] = {
        {"signed integer overflow", "signed-integer-overflow"},
        {"negation of", "signed-integer-overflow"},
        {"unsigned integer overflow", "unsigned-integer-overflow"},
        {"division by zero", "integer-divide-by-zero"},
        {"shift exponent", "shift-exponent"},
        {"left shift of", "shift-base"},
        {"load of null pointer", "null"},
        {"store to null pointer", "null"},
        {"member access within null pointer", "null"},
        {"member call on null pointer", "null"},
        {"reference binding to null pointer", "null"},
        {"null pointer passed as argument", "nonnull-attribute"},
        {"index ", "bounds"},
        {"load of misaligned address", "alignment"},
        {"store to misaligned address", "alignment"},
        {"member access within misaligned address", "alignment"},
        {"execution reached the end of a value-returning function", "return"},
        {"execution reached an unreachable program point", "unreachable"},
        {"variable length array bound", "vla-bound"},
        {"applying", "pointer-overflow"},
        {"pointer index expression", "pointer-overflow"},
        {"addition of unsigned offset", "pointer-overflow"},
        {"subtraction of unsigned offset", "pointer-overflow"},
    };
    size_t tl = (size_t)(end - t);
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        size_t n = strlen(map[i].prefix);
        if (tl >= n && memcmp(t, map[i].prefix, n) == 0)
            return strdup(map[i].name);
    }
    if (tl >= 8 && memcmp(t, "load of ", 8) == 0)
        return strdup(memmem(t, tl, "'bool'", 6) ? "bool" : "enum");
    if (memmem(t, tl, "outside the range of representable values", 41))
        return strdup("float-cast-overflow");
    /* Otherwise the leading words, up to a number, quote or colon. */
    wh_buf_t b = WH_BUF_INIT;
    int words = 0;
    for (const char *p = t; p < end && words < 5;) {
        while (p < end && *p == ' ')
            p++;
        const char *q = p;
        while (q < end && isalpha((unsigned char)*q))
            q++;
        if (q == p || (q < end && *q != ' '))
            break;
        if (words++)
            wh_buf_puts(&b, "-");
        for (const char *c = p; c < q; c++) {
            char lc = (char)tolower((unsigned char)*c);
            wh_buf_append(&b, &lc, 1);
        }
        p = q;
    }
    if (!b.len)
        wh_buf_puts(&b, "runtime-error");
    return wh_buf_detach(&b);
}

/* 1 when path (a frame's source file) is project code under root. */
static int s_project_path(const char *path, size_t n, const char *root, const char *real_root)
{
    if (n == 0)
        return 0;
    if (path[0] != '/')
        return !(n >= 3 && memcmp(path, "../", 3) == 0) && !memmem(path, n, "/../", 4) &&
               !memmem(path, n, "libsanitizer", 12);
    const char *roots[2] = {root, real_root};
    int any_root = 0;
    for (int i = 0; i < 2; i++) {
        const char *r = roots[i];
        if (!r || !*r)
            continue;
        any_root = 1;
        size_t rl = strlen(r);
        while (rl > 1 && r[rl - 1] == '/')
            rl--;
        if (n > rl && memcmp(path, r, rl) == 0 && path[rl] == '/')
            return 1;
    }
    if (any_root)
        return 0;
    /* No root known: anything outside the system folders. */
    static const char *const sys[] = {"/usr/", "/lib", "/opt/", "/build/", NULL};
    for (const char *const *s = sys; *s; s++)
        if (n >= strlen(*s) && memcmp(path, *s, strlen(*s)) == 0)
            return 0;
    return !memmem(path, n, "libsanitizer", 12);
}

static int s_runtime_func(const char *f, size_t n)
{
    static const char *const pre[] = {"__interceptor_", "___interceptor_", "__asan_", "__ubsan_",
                                      "__sanitizer_", "__lsan_", "__msan_", "__tsan_",
                                      "__libc_start", "_start", NULL};
    for (const char *const *p = pre; *p; p++)
        if (n >= strlen(*p) && memcmp(f, *p, strlen(*p)) == 0)
            return 1;
    return 0;
}

/* Parses one "    #N 0xADDR in FUNC FILE:LINE[:COL]" line; appends
 * "func@file.c:line" to frames (joined with " < ") when it is project code,
 * and sets *loc on the first one. Returns 1 when the line is a frame line. */
static int s_frame(const char *l, const char *end, const char *root, const char *real_root,
                   wh_buf_t *frames, int *n_frames, char **loc)
{
    const char *p = l;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= end || *p != '#' || p + 1 >= end || !isdigit((unsigned char)p[1]))
        return 0;
    if (*n_frames >= S_SAN_FRAMES)
        return 1;
    const char *in = memmem(p, (size_t)(end - p), " in ", 4);
    if (!in)
        return 1; /* "#3 0x… (module+0x…)": no function, no source */
    const char *r = in + 4, *re = end;
    while (re > r && (re[-1] == ' ' || re[-1] == '\r'))
        re--;
    const char *last = re;
    while (last > r && last[-1] != ' ')
        last--;
    if (last == r || *last == '(')
        return 1; /* no source file: a library without debug info */
    /* FILE:LINE[:COL] */
    const char *c1 = memchr(last, ':', (size_t)(re - last));
    if (!c1 || c1 + 1 >= re || !isdigit((unsigned char)c1[1]))
        return 1;
    const char *ln = c1 + 1, *lne = ln;
    while (lne < re && isdigit((unsigned char)*lne))
        lne++;
    if (!s_project_path(last, (size_t)(c1 - last), root, real_root))
        return 1;
    const char *fe = last - 1;
    while (fe > r && fe[-1] == ' ')
        fe--;
    /* C++: drop the parameter list. */
    const char *paren = memchr(r, '(', (size_t)(fe - r));
    if (paren && paren > r)
        fe = paren;
    if (s_runtime_func(r, (size_t)(fe - r)))
        return 1;
    const char *base = last;
    for (const char *q = last; q < c1; q++)
        if (*q == '/')
            base = q + 1;
    if (*n_frames)
        wh_buf_puts(frames, " < ");
    wh_buf_printf(frames, "%.*s@%.*s:%.*s", (int)(fe - r), r, (int)(c1 - base), base,
                  (int)(lne - ln), ln);
    if (!*loc)
        *loc = wh_strdup_printf("%.*s:%.*s", (int)(c1 - base), base, (int)(lne - ln), ln);
    (*n_frames)++;
    return 1;
}

int wh_san_parse(const char *text, size_t len, const char *root, wh_fp_t *out)
{
    if (!text || !out)
        return 0;
    static const struct {
        const char *marker, *tool;
    } tools[] = {
        {"ERROR: AddressSanitizer: ", "asan"},  {"ERROR: LeakSanitizer: ", "lsan"},
        {"ERROR: MemorySanitizer: ", "msan"},   {"WARNING: MemorySanitizer: ", "msan"},
        {"ERROR: ThreadSanitizer: ", "tsan"},   {"WARNING: ThreadSanitizer: ", "tsan"},
        {"ERROR: HWAddressSanitizer: ", "hwasan"}, {": runtime error: ", "ubsan"},
    };
    const char *end = text + len;
    /* The earliest header line of any tool. */
    const char *hdr = NULL, *tool = NULL, *after = NULL;
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        const char *h = memmem(text, len, tools[i].marker, strlen(tools[i].marker));
        if (h && (!hdr || h < hdr)) {
            hdr = h;
            tool = tools[i].tool;
            after = h + strlen(tools[i].marker);
        }
    }
    if (!hdr)
        return 0;
    const char *hl = hdr; /* start of the header line */
    while (hl > text && hl[-1] != '\n')
        hl--;
    const char *he = memchr(after, '\n', (size_t)(end - after));
    if (!he)
        he = end;

    char *kind = NULL, *access = NULL, *loc = NULL;
    int is_ubsan = strcmp(tool, "ubsan") == 0, is_lsan = strcmp(tool, "lsan") == 0;

    /* The error kind: the summary's (it names the check canonically),
     * else the header's first token. */
    const char *sum = memmem(hdr, (size_t)(end - hdr), "SUMMARY: ", 9);
    if (sum && !is_lsan) {
        const char *s = memchr(sum + 9, ':', (size_t)(end - sum - 9));
        const char *se = memchr(sum, '\n', (size_t)(end - sum));
        if (!se)
            se = end;
        if (s && s < se && s + 2 < se) {
            s += 2;
            if ((size_t)(se - s) > 11 && memcmp(s, "attempting ", 11) == 0)
                s += 11;
            kind = s_token(s, se);
            if (kind && (strcmp(kind, "undefined-behavior") == 0 || !kind[0] ||
                         isdigit((unsigned char)kind[0]))) {
                free(kind);
                kind = NULL;
            }
        }
    }
    if (!kind) {
        if (is_ubsan) {
            kind = s_ubsan_class(after, he);
        } else if (is_lsan) {
            const char *d = memmem(he, (size_t)(end - he), "Direct leak", 11);
            const char *ind = memmem(he, (size_t)(end - he), "Indirect leak", 13);
            kind = strdup(d ? "direct-leak" : ind ? "indirect-leak" : "memory-leak");
        } else {
            const char *s = after;
            if ((size_t)(he - s) > 11 && memcmp(s, "attempting ", 11) == 0)
                s += 11;
            kind = s_token(s, he);
        }
    }
    if (!kind)
        return WH_ENOMEM;

    /* The access, and the first stack. */
    char real_root[PATH_MAX];
    const char *rr = root && realpath(root, real_root) ? real_root : NULL;
    wh_buf_t frames = WH_BUF_INIT;
    int n_frames = 0, in_stack = 0;
    for (const char *l = he < end ? he + 1 : end; l < end;) {
        const char *le = memchr(l, '\n', (size_t)(end - l));
        if (!le)
            le = end;
        const char *body = s_skip_pid(l, le);
        if (!access) {
            if ((size_t)(le - body) > 8 && memcmp(body, "READ of ", 8) == 0)
                access = strdup("READ");
            else if ((size_t)(le - body) > 9 && memcmp(body, "WRITE of ", 9) == 0)
                access = strdup("WRITE");
            else if (memmem(body, (size_t)(le - body), "caused by a READ memory access", 30))
                access = strdup("READ");
            else if (memmem(body, (size_t)(le - body), "caused by a WRITE memory access", 31))
                access = strdup("WRITE");
        }
        if (s_frame(l, le, root, rr, &frames, &n_frames, &loc))
            in_stack = 1;
        else if (in_stack)
            break; /* the first stack ended */
        l = le < end ? le + 1 : end;
    }
    if (!loc && is_ubsan) {
        /* No stack: UBSan's own "file.c:12:5: runtime error" position. */
        const char *c = hl;
        while (c < hdr && *c != ':')
            c++;
        const char *ln = c + 1, *lne = ln;
        while (lne < hdr && isdigit((unsigned char)*lne))
            lne++;
        if (c < hdr && lne > ln)
            loc = wh_strdup_printf("%s:%.*s", s_basename(strndupa(hl, (size_t)(c - hl))),
                                   (int)(lne - ln), ln);
    }
    wh_fp_clear(out);
    out->kind = access ? wh_strdup_printf("sanitizer(%s,%s,%s)", tool, kind, access)
                       : wh_strdup_printf("sanitizer(%s,%s)", tool, kind);
    out->location = loc ? loc : strdup("");
    out->message = wh_buf_detach(&frames);
    free(kind);
    free(access);
    if (!out->kind || !out->location || !out->message) {
        wh_fp_clear(out);
        return WH_ENOMEM;
    }
    return 1;
}

/* The "<prefix>.*" files (at most S_SAN_MAX_FILES), malloc'ed paths. */
static int s_san_files(const char *prefix, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    char *dir = strdup(prefix);
    if (!dir)
        return WH_ENOMEM;
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : prefix;
    if (slash)
        *slash = '\0';
    DIR *d = opendir(slash ? (dir[0] ? dir : "/") : ".");
    if (!d) {
        free(dir);
        return 0;
    }
    size_t bl = strlen(base);
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) && *n < S_SAN_MAX_FILES) {
        if (strncmp(e->d_name, base, bl) != 0 || e->d_name[bl] != '.')
            continue;
        char **v = realloc(*names, (*n + 1) * sizeof *v);
        if (!v) {
            rc = WH_ENOMEM;
            break;
        }
        *names = v;
        v[*n] = slash ? wh_strdup_printf("%s/%s", dir, e->d_name) : strdup(e->d_name);
        if (!v[*n]) {
            rc = WH_ENOMEM;
            break;
        }
        (*n)++;
    }
    closedir(d);
    free(dir);
    return rc;
}

static int s_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int wh_san_remove(const char *prefix)
{
    char **names = NULL;
    size_t n = 0;
    int rc = prefix ? s_san_files(prefix, &names, &n) : WH_EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (unlink(names[i]) < 0 && errno != ENOENT && !rc)
            rc = -errno;
        free(names[i]);
    }
    free(names);
    return rc;
}

int wh_san_collect(const char *prefix, const char *root, wh_fp_t *out, wh_buf_t *raw)
{
    char **names = NULL;
    size_t n = 0;
    int rc = prefix ? s_san_files(prefix, &names, &n) : WH_EINVAL;
    if (n > 1)
        qsort(names, n, sizeof *names, s_cmp_str);
    int found = 0;
    for (size_t i = 0; i < n && rc >= 0; i++) {
        char *text = NULL;
        size_t len = 0;
        int r = wh_read_file(names[i], S_SAN_LOG_CAP, &text, &len);
        if (r == 0) {
            if (raw)
                wh_buf_printf(raw, "---- %s ----\n%s%s", names[i], text,
                              len && text[len - 1] != '\n' ? "\n" : "");
            if (!found) {
                int p = wh_san_parse(text, len, root, out);
                if (p < 0)
                    rc = p;
                found = p > 0;
            }
        }
        free(text);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc < 0 ? rc : found;
}

/* ---- console preset ---- */

typedef struct {
    const char *target;
    int hit;
    char *test, *file, *line, *message, *kind;
    char *whole;
} s_hit_t;

static void s_hit_free(s_hit_t *h)
{
    free(h->test), free(h->file), free(h->line), free(h->message), free(h->kind), free(h->whole);
    h->test = h->file = h->line = h->message = h->kind = h->whole = NULL;
}

/* The first match whose test group is the target; a regex without a test
 * group (or a match where it did not take part) names the target. */
static int s_on_match(void *arg, const s_rx_t *rx, const regmatch_t *m, const char *base)
{
    s_hit_t *h = arg;
    char *test = s_rx_group(rx, m, base, S_G_TEST);
    if (test && strcmp(test, h->target) != 0) {
        free(test);
        return 0;
    }
    h->hit = 1;
    h->test = test;
    h->file = s_rx_group(rx, m, base, S_G_FILE);
    h->line = s_rx_group(rx, m, base, S_G_LINE);
    h->message = s_rx_group(rx, m, base, S_G_MESSAGE);
    h->kind = s_rx_group(rx, m, base, S_G_KIND);
    h->whole = strndup(base + m[0].rm_so, (size_t)(m[0].rm_eo - m[0].rm_so));
    return 1;
}

static int s_console_check(const wh_fw_opts_t *opts, char **err)
{
    if (!opts || !opts->failure_regex || !*opts->failure_regex) {
        if (err)
            *err = strdup("the console framework needs --failure-regex");
        return WH_EINVAL;
    }
    s_rx_t rx;
    int rc = s_rx_compile(&rx, opts->failure_regex, "--failure-regex", err);
    s_rx_free(&rx);
    if (!rc && opts->pass_regex && *opts->pass_regex) {
        rc = s_rx_compile(&rx, opts->pass_regex, "--pass-regex", err);
        s_rx_free(&rx);
    }
    return rc;
}

/* A crash seen in the text (a sanitizer report or a shell's crash line):
 * FAILED for the target with that identity. Returns 1 when one was seen. */
static int s_text_crash(const char *text, size_t len, const char *test, const char *root,
                        wh_test_result_t *out, int *rc)
{
    wh_fp_t san = {0};
    int p = wh_san_parse(text, len, root, &san);
    if (p < 0) {
        *rc = p;
        return 1;
    }
    if (p > 0) {
        *rc = s_set(out, WH_TR_FAILED, test, san.kind, san.location, san.message);
        wh_fp_clear(&san);
        return 1;
    }
    int sig = wh_crash_text(text, len);
    if (sig) {
        char *kind = wh_crash_kind(sig);
        *rc = kind ? s_set(out, WH_TR_FAILED, test, kind, "", "") : WH_ENOMEM;
        free(kind);
        return 1;
    }
    return 0;
}

static int s_console_read(const char *report_path, const char *console, size_t console_len,
                          const char *test, const wh_fw_opts_t *opts, wh_test_result_t *out,
                          char **err)
{
    (void)report_path;
    wh_fwu_result_init(out, err);
    if (!test || !opts)
        return WH_EINVAL;
    s_rx_t fail_rx, pass_rx;
    int have_pass = 0;
    int rc = s_rx_compile(&fail_rx, opts->failure_regex ? opts->failure_regex : "",
                          "--failure-regex", err);
    if (rc)
        return rc;
    if (opts->pass_regex && *opts->pass_regex) {
        if ((rc = s_rx_compile(&pass_rx, opts->pass_regex, "--pass-regex", err)) != 0) {
            s_rx_free(&fail_rx);
            return rc;
        }
        have_pass = 1;
    }
    char *text = s_console_copy(console ? console : "", console ? console_len : 0);
    size_t len = console ? console_len : 0;
    s_hit_t h = {.target = test};
    if (!text) {
        rc = WH_ENOMEM;
        goto out;
    }
    rc = s_rx_each(&fail_rx, text, len, s_on_match, &h);
    if (rc < 0)
        goto out;
    rc = 0;
    if (h.hit) {
        char *loc = NULL;
        if (h.file && h.line)
            loc = wh_strdup_printf("%s:%s", s_basename(h.file), h.line);
        else if (h.file)
            loc = strdup(s_basename(h.file));
        rc = s_set(out, WH_TR_FAILED, test, h.kind && *h.kind ? h.kind : "assert",
                   loc ? loc : "", h.message ? h.message : h.whole);
        free(loc);
        goto out;
    }
    if (have_pass) {
        s_hit_free(&h);
        rc = s_rx_each(&pass_rx, text, len, s_on_match, &h);
        if (rc < 0)
            goto out;
        rc = 0;
        if (h.hit) {
            rc = s_set(out, WH_TR_PASSED, test, NULL, NULL, NULL);
            goto out;
        }
    }
    /* Neither: the harness may have died before reaching the target. */
    if (!s_text_crash(text, len, test, opts->root, out, &rc))
        out->status = WH_TR_MISSING;
out:
    s_hit_free(&h);
    free(text);
    s_rx_free(&fail_rx);
    if (have_pass)
        s_rx_free(&pass_rx);
    if (rc) {
        wh_test_result_clear(out);
        if (err && !*err)
            *err = strdup(wh_strerror(rc));
    }
    return rc;
}

/* ---- plain preset ---- */

/* The function's name from __PRETTY_FUNCTION__: "test_x" in C, "void
 * ns::test_x(int)" in C++ → "ns::test_x". */
static char *s_func_name(const char *f, size_t n)
{
    const char *e = memchr(f, '(', n);
    if (!e)
        e = f + n;
    const char *s = e;
    while (s > f && s[-1] != ' ' && s[-1] != '*' && s[-1] != '&')
        s--;
    return strndup(s, (size_t)(e - s));
}

static int s_name_is(const char *name, const char *target)
{
    if (strcmp(name, target) == 0)
        return 1;
    size_t n = strlen(name), t = strlen(target);
    return n > t + 2 && strcmp(name + n - t, target) == 0 && name[n - t - 1] == ':' &&
           name[n - t - 2] == ':';
}

/* glibc: "prog: file.c:12: func: Assertion `x == 1' failed."
 * musl:  "Assertion failed: x == 1 (file.c: func: 12)"
 * Fills *file, *line, *func (any may stay NULL) and *msg. */
static int s_assert_line(const char *l, size_t n, char **file, char **line, char **func,
                         char **msg)
{
    static const char glibc[] = "Assertion `", tail[] = "' failed.";
    const char *a = memmem(l, n, glibc, sizeof glibc - 1);
    size_t tl = sizeof tail - 1;
    while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
        n--;
    if (a && n >= tl && memcmp(l + n - tl, tail, tl) == 0) {
        *msg = strndup(a, (size_t)(l + n - a));
        /* Before it: "prog: file:line: func: " (func may be missing). */
        const char *e = a;
        if (e - l >= 2 && e[-2] == ':' && e[-1] == ' ')
            e -= 2;
        const char *parts[4];
        size_t lens[4];
        int np = 0;
        const char *s = e;
        /* Split from the right on ": " into at most 3 parts. */
        while (np < 3) {
            const char *p = s;
            while (p - l >= 2 && !(p[-2] == ':' && p[-1] == ' '))
                p--;
            if (p - l < 2) {
                parts[np] = l;
                lens[np++] = (size_t)(s - l);
                break;
            }
            parts[np] = p;
            lens[np++] = (size_t)(s - p);
            s = p - 2;
        }
        /* parts[0] is func or "file:line"; whichever holds ":<digits>" at
         * its end is the location. */
        for (int i = 0; i < np; i++) {
            const char *c = memrchr(parts[i], ':', lens[i]);
            if (!c || c + 1 >= parts[i] + lens[i])
                continue;
            const char *d = c + 1;
            while (d < parts[i] + lens[i] && isdigit((unsigned char)*d))
                d++;
            if (d != parts[i] + lens[i])
                continue;
            *file = strndup(parts[i], (size_t)(c - parts[i]));
            *line = strndup(c + 1, (size_t)(d - c - 1));
            if (i > 0)
                *func = s_func_name(parts[0], lens[0]);
            break;
        }
        return 1;
    }
    static const char musl[] = "Assertion failed: ";
    if (n > sizeof musl && memcmp(l, musl, sizeof musl - 1) == 0 && l[n - 1] == ')') {
        const char *open = memrchr(l, '(', n);
        if (!open)
            return 0;
        const char *in = open + 1, *ie = l + n - 1;
        const char *c1 = memmem(in, (size_t)(ie - in), ": ", 2);
        const char *c2 = c1 ? memrchr(c1 + 2, ':', (size_t)(ie - c1 - 2)) : NULL;
        if (!c1 || !c2)
            return 0;
        *file = strndup(in, (size_t)(c1 - in));
        *func = s_func_name(c1 + 2, (size_t)(c2 - c1 - 2));
        const char *ln = c2 + 1;
        while (*ln == ' ')
            ln++;
        *line = strndup(ln, (size_t)(ie - ln));
        const char *me = open;
        while (me > l && me[-1] == ' ')
            me--;
        *msg = strndup(l, (size_t)(me - l));
        return 1;
    }
    return 0;
}

static int s_plain_read(const char *report_path, const char *console, size_t console_len,
                        const char *test, const wh_fw_opts_t *opts, wh_test_result_t *out,
                        char **err)
{
    (void)report_path;
    wh_fwu_result_init(out, err);
    if (!test)
        return WH_EINVAL;
    const char *c = console ? console : "";
    size_t len = console ? console_len : 0;
    int rc = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && c[e] != '\n' && c[e] != '\0')
            e++;
        char *file = NULL, *line = NULL, *func = NULL, *msg = NULL;
        if (s_assert_line(c + i, e - i, &file, &line, &func, &msg)) {
            char *loc = file && line ? wh_strdup_printf("%s:%s", s_basename(file), line)
                                     : strdup("");
            /* The target is the function the assertion fired in; any other
             * function is another failure (the oracle's test comparison
             * turns it into DifferentFailure). */
            const char *who = func && !s_name_is(func, test) ? func : test;
            rc = loc && msg ? s_set(out, WH_TR_FAILED, who, "assert", loc, msg) : WH_ENOMEM;
            free(loc);
            free(file), free(line), free(func), free(msg);
            goto out;
        }
        free(file), free(line), free(func), free(msg);
        i = e + 1;
    }
    if (!s_text_crash(c, len, test, opts ? opts->root : NULL, out, &rc))
        rc = s_set(out, WH_TR_PASSED, test, NULL, NULL, NULL);
out:
    if (rc) {
        wh_test_result_clear(out);
        if (err && !*err)
            *err = strdup(wh_strerror(rc));
    }
    return rc;
}

/* ---- the table ---- */

static const char *const s_no_env[] = {NULL};

static const wh_framework_t s_presets[] = {
    {"console", NULL, s_no_env, s_console_read, s_console_check},
    {"plain", NULL, s_no_env, s_plain_read, NULL},
};

const wh_framework_t *wh_fw_console_presets(size_t *n)
{
    if (n)
        *n = sizeof s_presets / sizeof s_presets[0];
    return s_presets;
}

int wh_fw_reads_console(const wh_framework_t *fw)
{
    return fw && fw >= s_presets && fw < s_presets + sizeof s_presets / sizeof s_presets[0];
}
