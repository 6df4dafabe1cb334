/*
 * record — the run folder. See record.h.
 */
#define _GNU_SOURCE
#include "record.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

struct wh_record {
    char *dir;
    FILE *log;
    FILE *csv;
};

static char *s_safe_name(const char *test)
{
    char *s = strdup(test);
    for (char *p = s; p && *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'))
            *p = '_';
    return s;
}

wh_record_t *wh_record_open(const char *out, const char *test, char **err)
{
    int rc = wh_mkdir_p(out);
    if (rc) {
        *err = wh_strdup_printf("cannot create output folder '%s': %s", out, wh_strerror(rc));
        return NULL;
    }
    wh_record_t *r = calloc(1, sizeof *r);
    char *safe = s_safe_name(test);
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int k = 0; k < 1000 && r && safe; k++) {
        char *d = k ? wh_strdup_printf("%s/%s-%s-%d", out, safe, stamp, k)
                    : wh_strdup_printf("%s/%s-%s", out, safe, stamp);
        if (d && mkdir(d, 0755) == 0) {
            r->dir = d;
            break;
        }
        int e = errno;
        free(d);
        if (e != EEXIST) {
            *err = wh_strdup_printf("cannot create run folder in '%s': %s", out, strerror(e));
            free(safe);
            free(r);
            return NULL;
        }
    }
    free(safe);
    if (!r || !r->dir) {
        *err = strdup("cannot create run folder");
        free(r);
        return NULL;
    }
    char *p = wh_path_join(r->dir, "run.log");
    r->log = fopen(p, "a");
    free(p);
    p = wh_path_join(r->dir, "candidates.csv");
    r->csv = fopen(p, "w");
    free(p);
    p = wh_path_join(r->dir, "reports");
    wh_mkdir_p(p);
    free(p);
    if (!r->log || !r->csv) {
        *err = wh_strdup_printf("cannot write the run record in '%s'", r->dir);
        wh_record_close(&r);
        return NULL;
    }
    fprintf(r->csv, "candidate,sweep,level,kept,total,verdict,cached,node,ms,report,runs,key\n");
    fflush(r->csv);
    return r;
}

void wh_record_close(wh_record_t **rp)
{
    wh_record_t *r = *rp;
    if (!r)
        return;
    if (r->log)
        fclose(r->log);
    if (r->csv)
        fclose(r->csv);
    free(r->dir);
    free(r);
    *rp = NULL;
}

const char *wh_record_dir(const wh_record_t *r)
{
    return r->dir;
}

void wh_record_log(wh_record_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(r->log, fmt, ap);
    va_end(ap);
    fputc('\n', r->log);
    fflush(r->log);
}

void wh_record_candidate(wh_record_t *r, const wh_cand_row_t *c)
{
    char runs[32] = "";
    if (c->runs)
        snprintf(runs, sizeof runs, "%d/%d", c->agreeing, c->runs);
    fprintf(r->csv, "%d,%d,%d,%d,%d,%s,%d,%s,%llu,%s,%s,%s\n", c->id, c->sweep, c->level, c->kept,
            c->total, wh_verdict_name(c->verdict), c->cached, c->node ? c->node : "-",
            (unsigned long long)c->ms, c->report ? c->report : "", runs, c->key ? c->key : "");
    fflush(r->csv);
    fprintf(r->log, "[cand_%03d] keep %d/%d -> %s%s%s%s  removed: %s\n", c->id, c->kept,
            c->total, wh_verdict_name(c->verdict), c->cached ? "  (cached)" : "",
            c->node && !c->cached ? "  node " : "", c->node && !c->cached ? c->node : "",
            c->removed ? c->removed : "-");
    if (c->note)
        fprintf(r->log, "           note: %s\n", c->note);
    fflush(r->log);
}

int wh_record_file(wh_record_t *r, const char *name, const void *data, size_t len)
{
    char *p = wh_path_join(r->dir, name);
    if (!p)
        return WH_ENOMEM;
    char *slash = strrchr(p, '/');
    *slash = '\0';
    wh_mkdir_p(p);
    *slash = '/';
    int rc = wh_write_file(p, data, len);
    free(p);
    return rc;
}
