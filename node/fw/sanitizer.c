/*
 * sanitizer — the identity of a test that died instead of failing: the
 * crash kind of a signal, the crash line a shell prints, and sanitizer
 * reports (ASan, LSan, UBSan, MSan, TSan) turned into a fingerprint.
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
 *
 * Pure text and file work: no framework, no oracle.
 */
#define _GNU_SOURCE
#include "sanitizer.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes of one sanitizer log read (reports are a few kilobytes). */
#define S_SAN_LOG_CAP ((size_t)1 << 20)
/* Sanitizer log files looked at per run. */
#define S_SAN_MAX_FILES 64
/* Project frames in a sanitizer identity. */
#define S_SAN_FRAMES 3

static const char *s_basename(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
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

