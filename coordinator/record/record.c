/*
 * record — the run folder. See record.h.
 */
#define _GNU_SOURCE
#include "record.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct wh_record {
    char *dir;
    FILE *log;
    FILE *csv;
    FILE *judged;
    char **slots;    /* distinct slots that answered (judged.csv) */
    int nslots;
};

/* Counts slot among the slots that answered in this run. */
static void s_count_slot(wh_record_t *r, const char *slot)
{
    if (!slot || !strcmp(slot, "-"))
        return;
    for (int i = 0; i < r->nslots; i++)
        if (!strcmp(r->slots[i], slot))
            return;
    char **v = realloc(r->slots, (size_t)(r->nslots + 1) * sizeof *v);
    if (!v)
        return;
    r->slots = v;
    if ((v[r->nslots] = strdup(slot)))
        r->nslots++;
}

static char *s_safe_name(const char *test)
{
    char *s = strdup(test);
    for (char *p = s; p && *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'))
            *p = '_';
    return s;
}

/* OUT/latest -> the newest run folder (relative), for CI scripts: made
 * beside as a temporary name and renamed over, so it never dangles. A
 * failure leaves the old link; the run goes on. */
static void s_link_latest(const char *out, const char *dir)
{
    const char *base = strrchr(dir, '/');
    char *tmp = wh_strdup_printf("%s/.latest.%ld", out, (long)getpid());
    char *link = wh_path_join(out, "latest");
    if (tmp && link && base) {
        unlink(tmp);
        if (symlink(base + 1, tmp) == 0 && rename(tmp, link) != 0)
            unlink(tmp);
    }
    free(tmp);
    free(link);
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
    s_link_latest(out, r->dir);
    char *p = wh_path_join(r->dir, "run.log");
    r->log = fopen(p, "a");
    free(p);
    p = wh_path_join(r->dir, "candidates.csv");
    r->csv = fopen(p, "w");
    free(p);
    p = wh_path_join(r->dir, "judged.csv");
    r->judged = fopen(p, "w");
    free(p);
    p = wh_path_join(r->dir, "reports");
    wh_mkdir_p(p);
    free(p);
    if (!r->log || !r->csv || !r->judged) {
        *err = wh_strdup_printf("cannot write the run record in '%s'", r->dir);
        wh_record_close(&r);
        return NULL;
    }
    fprintf(r->csv, "candidate,sweep,level,kept,total,verdict,cached,node,ms,report,runs,key,infra,"
            "predicted,precheck,build_ms,test_ms,end_ms\n");
    fflush(r->csv);
    fprintf(r->judged, "eval,kind,slot,verdict,build_ms,test_ms,end_ms\n");
    fflush(r->judged);
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
    if (r->judged)
        fclose(r->judged);
    for (int i = 0; i < r->nslots; i++)
        free(r->slots[i]);
    free(r->slots);
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

/* A free-text CSV field: quoted, inner quotes doubled, one line. */
static void s_csv_field(FILE *f, const char *s)
{
    if (!s || !*s)
        return;
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

void wh_record_candidate(wh_record_t *r, const wh_cand_row_t *c)
{
    char runs[32] = "";
    if (c->runs)
        snprintf(runs, sizeof runs, "%d/%d", c->agreeing, c->runs);
    fprintf(r->csv, "%d,%d,%d,%d,%d,%s,%d,%s,%llu,%s,%s,%s,", c->id, c->sweep, c->level, c->kept,
            c->total, wh_verdict_name(c->verdict), c->cached, c->node ? c->node : "-",
            (unsigned long long)c->ms, c->report ? c->report : "", runs, c->key ? c->key : "");
    s_csv_field(r->csv, c->infra);
    fprintf(r->csv, ",%d,%s,%llu,%llu,%llu\n", c->predicted, c->precheck ? c->precheck : "-",
            (unsigned long long)c->build_ms, (unsigned long long)c->test_ms,
            (unsigned long long)c->end_ms);
    fflush(r->csv);
    fprintf(r->log, "[cand_%03d] keep %d/%d -> %s%s%s%s  removed: %s\n", c->id, c->kept,
            c->total, wh_verdict_name(c->verdict),
            c->cached ? "  (cached)" : c->predicted ? "  (predicted)" : "",
            c->node && !c->cached ? "  node " : "", c->node && !c->cached ? c->node : "",
            c->removed ? c->removed : "-");
    if (c->note)
        fprintf(r->log, "           note: %s\n", c->note);
    if (c->infra)
        fprintf(r->log, "           infra: judged after infrastructure faults: %s\n", c->infra);
    fflush(r->log);
}

void wh_record_judged(wh_record_t *r, const wh_judged_row_t *j)
{
    fprintf(r->judged, "%llu,%s,", (unsigned long long)j->eval, j->kind ? j->kind : "");
    s_csv_field(r->judged, j->slot);
    fprintf(r->judged, ",%s,%llu,%llu,%llu\n", j->verdict ? j->verdict : "",
            (unsigned long long)j->build_ms, (unsigned long long)j->test_ms,
            (unsigned long long)j->end_ms);
    fflush(r->judged);
    s_count_slot(r, j->slot);
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

void wh_record_reduced(wh_record_t *r, const char *ext, const char *lines, size_t len,
                       const char *compact, size_t clen)
{
    char *name = wh_strdup_printf("reduced.lines%s", ext);
    if (lines && name)
        wh_record_file(r, name, lines, len);
    free(name);
    name = wh_strdup_printf("reduced%s", ext);
    if (compact && name)
        wh_record_file(r, name, compact, clen);
    free(name);
}

/* s as a JSON string; bytes that are not UTF-8 (a Latin-1 file, a head
 * cut inside a character) become '?'. */
static json_t *s_json_text(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j)
        return j;
    char *c = strdup(s);
    for (unsigned char *p = (unsigned char *)c; p && *p;) {
        int n = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3
                              : (*p & 0xF8) == 0xF0 ? 4 : 0;
        int ok = n > 0;
        for (int k = 1; ok && k < n; k++)
            ok = (p[k] & 0xC0) == 0x80;
        json_t *t = ok && n > 1 ? json_stringn((const char *)p, (size_t)n) : NULL;
        ok = ok && (n == 1 || t); /* jansson also refuses overlong forms, surrogates */
        json_decref(t);
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += n;
    }
    j = c ? json_string(c) : NULL;
    free(c);
    return j ? j : json_string("");
}

void wh_record_tree(wh_record_t *r, const char *test, const wh_record_unit_t *u, int n)
{
    /* The text jansson writes for the whole tree (JSON_INDENT(1)), one unit
     * at a time: the document for 5000 units took about 5 MB at the end
     * of the run, the peak of its resident memory (issue 36). Each unit is
     * dumped alone and indented two more places, as it sits in "units". */
    wh_buf_t b = WH_BUF_INIT;
    json_t *t = s_json_text(test);
    char *ts = t ? json_dumps(t, JSON_ENCODE_ANY) : NULL;
    json_decref(t);
    int ok = ts && wh_buf_printf(&b, "{\n \"test\": %s,\n \"units\": [", ts) == 0;
    free(ts);
    for (int i = 0; ok && i < n; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "parent", json_integer(u[i].parent));
        json_object_set_new(e, "level", json_integer(u[i].level));
        json_object_set_new(e, "tree", json_boolean(u[i].is_tree));
        json_object_set_new(e, "kind", json_string(u[i].kind ? u[i].kind : "other"));
        json_object_set_new(e, "line", json_integer(u[i].line));
        json_object_set_new(e, "text", s_json_text(u[i].head));
        json_object_set_new(e, "removed_by", json_integer(u[i].removed_by));
        char *js = json_dumps(e, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        json_decref(e);
        ok = js && wh_buf_puts(&b, i ? ",\n  " : "\n  ") == 0;
        for (const char *p = js, *nl; ok && p; p = nl ? nl + 1 : NULL) {
            nl = strchr(p, '\n');
            ok = wh_buf_append(&b, p, nl ? (size_t)(nl - p) : strlen(p)) == 0 &&
                 (!nl || wh_buf_puts(&b, "\n  ") == 0);
        }
        free(js);
    }
    ok = ok && wh_buf_puts(&b, n ? "\n ]\n}" : "]\n}") == 0;
    if (ok)
        wh_record_file(r, "tree.json", b.buf, b.len);
    wh_buf_free(&b);
}

const char *wh_record_fault_line(const char *fault, int keep_fault)
{
    if (!fault)
        return "fault not checked: no version without the bug was given; pass "
               "--reference DIR|GIT-REV to check that the reduced test still reveals the "
               "fault (and to keep it)";
    if (!strcmp(fault, "kept"))
        return "fault kept: the reduced test passes on the reference";
    if (!strcmp(fault, "lost"))
        return keep_fault ? "FAULT LOST: the reduced test fails on the reference too"
                          : "FAULT LOST: the reduced test fails on the reference too; it keeps "
                            "the failure but no longer reveals the fault (drop --no-keep-fault "
                            "to keep it)";
    return fault;
}

char *wh_record_unchecked_line(const char *why)
{
    if (!why)
        return strdup(wh_record_fault_line(NULL, 0));
    return wh_strdup_printf("fault not checked: %s; pass --reference DIR|GIT-REV to check that "
                            "the reduced test still reveals the fault (and to keep it)", why);
}

char *wh_record_fault_text(const wh_summary_t *s)
{
    if (s->reference)
        return strdup(wh_record_fault_line(s->fault, s->keep_fault));
    char *none = !s->ref_unchecked && s->ref_why
                     ? wh_strdup_printf("reference: none (%s)", s->ref_why)
                     : NULL;
    char *line = wh_record_unchecked_line(s->ref_unchecked ? s->ref_unchecked : none);
    free(none);
    return line;
}

static const char *s_nz(const char *s)
{
    return s ? s : "";
}

static void s_json_measure(json_t *o, const char *k, double num, double den, double scale)
{
    if (den > 0)
        json_object_set_new(o, k, json_real(num / den * scale));
    else
        json_object_set_new(o, k, json_null());
}

static void s_json_sizes(json_t *o, const wh_summary_t *s)
{
    json_object_set_new(o, "test", json_string(s_nz(s->test)));
    json_object_set_new(o, "file", json_string(s_nz(s->file)));
    json_object_set_new(o, "project", json_string(s_nz(s->project)));
    json_object_set_new(o, "algorithm", json_string(s_nz(s->algorithm)));
    json_object_set_new(o, "ddmin", json_string(s_nz(s->ddmin)));
    json_object_set_new(o, "job_id", json_string(s_nz(s->job_id)));
    json_object_set_new(o, "statements_before", json_integer(s->before));
    json_object_set_new(o, "statements_after", json_integer(s->after));
    json_object_set_new(o, "tree_before", json_integer(s->tree_before));
    json_object_set_new(o, "tree_after", json_integer(s->tree_after));
    json_object_set_new(o, "nontree_before", json_integer(s->nontree_before));
    json_object_set_new(o, "nontree_after", json_integer(s->nontree_after));
    /* The removed statements by tree index (whittle inspect's order), so two
     * runs of one test can be compared statement by statement. */
    json_t *ru = json_array();
    for (int i = 0; s->removed && i < s->before; i++)
        if (s->removed[i])
            json_array_append_new(ru, json_integer(i));
    json_object_set_new(o, "removed_units", ru);
    json_object_set_new(o, "sweeps", json_integer(s->sweeps));
    json_object_set_new(o, "rounds", json_integer(s->rounds));
    json_object_set_new(o, "building_rounds", json_integer(s->building_rounds));
    if (s->prior) {
        json_t *pj = json_object();
        json_object_set_new(pj, "mode", json_string(s->prior));
        json_object_set_new(pj, "slice", s->slice >= 0 ? json_integer(s->slice) : json_null());
        json_object_set_new(pj, "surprised_preserved", json_integer(s->surprises[1]));
        json_object_set_new(pj, "surprised_not", json_integer(s->surprises[0]));
        json_object_set_new(o, "expectations", pj);
    }
    json_object_set_new(o, "candidates", json_integer(s->candidates));
    json_object_set_new(o, "evaluated", json_integer(s->evaluated));
    json_object_set_new(o, "predicted", json_integer(s->predicted));
    json_object_set_new(o, "ub_guard", json_integer(s->ub_guard));
    json_object_set_new(o, "cached", json_integer(s->cached));
    json_object_set_new(o, "extra", json_integer(s->extra));
    json_object_set_new(o, "cancelled", json_integer(s->cancelled));
    json_t *vs = json_object();
    for (int v = 1; v < WH_V_COUNT; v++)
        json_object_set_new(vs, wh_verdict_name((wh_verdict_t)v), json_integer(s->verdicts[v]));
    json_object_set_new(vs, wh_verdict_name(WH_V_UB_GUARD), json_integer(s->ub_guard));
    json_object_set_new(o, "verdicts", vs);
    json_object_set_new(o, "wall_ms", json_integer((json_int_t)s->wall_ms));
    json_object_set_new(o, "jobs", json_integer(s->jobs));
    json_object_set_new(o, "cache", json_string(s_nz(s->cache)));
}

/* Setups and clones run for the job, the longest of each, and when its
 * first slot was warm. */
static json_t *s_json_warm(const wh_summary_t *s)
{
    if (!s->warm_known)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "setups", json_integer(s->warm_setups));
    json_object_set_new(o, "clones", json_integer(s->warm_clones));
    json_object_set_new(o, "failed", json_integer(s->warm_failed));
    json_object_set_new(o, "setup_ms", json_integer((json_int_t)s->warm_setup_ms));
    json_object_set_new(o, "clone_ms", json_integer((json_int_t)s->warm_clone_ms));
    json_object_set_new(o, "first_warm_ms", json_integer((json_int_t)s->warm_first_ms));
    return o;
}

static void s_json_run(json_t *o, const wh_summary_t *s)
{
    json_t *fp = json_object();
    json_object_set_new(fp, "test", json_string(s_nz(s->fp->test)));
    json_object_set_new(fp, "kind", json_string(s_nz(s->fp->kind)));
    json_object_set_new(fp, "message", json_string(s_nz(s->fp->message)));
    json_object_set_new(fp, "location", json_string(s_nz(s->fp->location)));
    json_object_set_new(o, "fingerprint", fp);
    json_object_set_new(o, "flaky_candidates", json_integer(s->flaky));
    json_object_set_new(o, "speculated", json_integer(s->speculated));
    json_object_set_new(o, "speculation_used", json_integer(s->spec_used));
    json_object_set_new(o, "speculation_dropped", json_integer(s->spec_dropped));
    json_object_set_new(o, "chain_waits", json_integer(s->chain_waits));
    json_object_set_new(o, "infra_faults", json_integer(s->infra_faults));
    json_t *out = json_array();
    for (int i = 0; i < s->n_out; i++)
        json_array_append_new(out, json_string(s_nz(s->out_slots[i])));
    json_object_set_new(o, "out_of_rotation", out);
    json_object_set_new(o, "warm", s_json_warm(s));
    json_object_set_new(o, "verified", json_boolean(s->verified));
    json_object_set_new(o, "verify_sanitizers",
                        s->sanitizers ? json_string(s->sanitizers) : json_null());
    json_object_set_new(o, "verify_runs", json_integer(s->verify_runs));
    json_object_set_new(o, "verdicts_dropped", json_integer(s->dropped));
    json_object_set_new(o, "restarts", json_integer(s->restarts));
    json_object_set_new(o, "verified_by", s->verified_by ? json_string(s->verified_by) : json_null());
    json_object_set_new(o, "second_opinion", json_boolean(s->second_opinion));
    json_object_set_new(o, "partial", s->partial ? json_string(s->partial) : json_false());
    json_object_set_new(o, "budget", s->budget ? json_string(s->budget) : json_null());
    json_object_set_new(o, "not_verified",
                        s->not_verified ? json_string(s->not_verified) : json_null());
    json_t *cl = json_object();
    json_object_set_new(cl, "checked", json_integer(s->claims_checked));
    json_object_set_new(cl, "refuted", json_integer(s->claims_refuted));
    json_object_set_new(cl, "early", json_integer(s->claims_early));
    json_object_set_new(cl, "early_dropped", json_integer(s->claims_early_dropped));
    json_object_set_new(o, "claims", cl);
    json_t *au = json_object();
    json_object_set_new(au, "audited", json_integer(s->audits));
    json_object_set_new(au, "refuted", json_integer(s->audits_refuted));
    json_object_set_new(o, "cache_audit", au);
    /* true/false only when a reference decided it; null: not checked. */
    json_object_set_new(o, "fault_kept", s->reference && s->fault && !strcmp(s->fault, "kept")
                                             ? json_true()
                                         : s->reference && s->fault && !strcmp(s->fault, "lost")
                                             ? json_false()
                                             : json_null());
    if (s->repeat > 1)
        json_object_set_new(o, "repeat", json_integer(s->repeat));
    if (s->reference) {
        json_t *f = json_object();
        json_object_set_new(f, "reference", json_string(s->reference));
        json_object_set_new(f, "keep_fault", json_boolean(s->keep_fault));
        json_object_set_new(f, "status", json_string(s->fault ? s->fault : "unknown"));
        json_object_set_new(f, "fault_kept", s->fault && !strcmp(s->fault, "kept") ? json_true()
                                             : s->fault && !strcmp(s->fault, "lost") ? json_false()
                                                                                    : json_null());
        json_object_set_new(f, "on_reference", json_string(s_nz(s->fault_detail)));
        json_object_set_new(o, "fault", f);
    }
    if (s->ref_why) {
        /* --reference auto: what it picked and why, or why nothing. */
        json_t *a = json_object();
        json_object_set_new(a, "picked", s->ref_picked ? json_string(s->ref_picked) : json_null());
        json_object_set_new(a, "why", json_string(s->ref_why));
        json_object_set_new(a, "used", json_boolean(s->ref_picked && s->reference));
        json_object_set_new(a, "dropped", s->ref_unchecked ? json_string(s->ref_unchecked)
                                                           : json_null());
        json_object_set_new(o, "reference_auto", a);
    }
}

static void s_json_precheck(json_t *o, const wh_precheck_summary_t *pc)
{
    if (!pc)
        return;
    json_t *p = json_object();
    json_object_set_new(p, "mode", json_string(s_nz(pc->mode)));
    json_object_set_new(p, "enabled", json_boolean(pc->enabled));
    json_object_set_new(p, "off_because", pc->off_because ? json_string(pc->off_because) : json_null());
    json_object_set_new(p, "flags", pc->flags ? json_string(pc->flags) : json_null());
    json_object_set_new(p, "checks", json_integer(pc->checks));
    json_object_set_new(p, "check_ms", json_real(pc->check_ms));
    json_object_set_new(p, "setup_ms", json_real(pc->setup_ms));
    json_object_set_new(p, "unchecked", json_integer(pc->unchecked));
    if (pc->audit) {
        json_t *a = json_object();
        json_object_set_new(a, "built", json_integer(pc->built));
        json_object_set_new(a, "build_failed", json_integer(pc->build_failed));
        json_object_set_new(a, "build_failed_predicted", json_integer(pc->build_failed_predicted));
        json_object_set_new(a, "predicted_but_built", json_integer(pc->predicted_but_built));
        json_object_set_new(a, "disagreements", json_integer(pc->disagreements));
        json_t *list = pc->list_json ? json_loads(pc->list_json, 0, NULL) : NULL;
        json_object_set_new(a, "list", json_is_array(list) ? list : json_array());
        if (list && !json_is_array(list))
            json_decref(list);
        json_object_set_new(p, "audit", a);
    }
    json_object_set_new(o, "precheck", p);
}

/* The UB guard's figures: summary.json "ub_guard_check". */
static void s_json_ubguard(json_t *o, const wh_summary_t *s)
{
    if (!s->ub_mode)
        return;
    json_t *u = json_object();
    json_object_set_new(u, "mode", json_string(s->ub_mode));
    json_object_set_new(u, "enabled", json_boolean(s->ub_enabled));
    json_object_set_new(u, "off_because",
                        s->ub_off_because ? json_string(s->ub_off_because) : json_null());
    json_object_set_new(u, "checks", json_integer(s->ub_checks));
    json_object_set_new(u, "check_ms", json_real(s->ub_check_ms));
    json_object_set_new(u, "setup_ms", json_real(s->ub_setup_ms));
    json_object_set_new(u, "unchecked", json_integer(s->ub_unchecked));
    json_object_set_new(u, "original_warnings", json_integer(s->ub_original));
    json_object_set_new(u, "held", json_integer(s->ub_guard));
    json_object_set_new(u, "held_not_built", json_integer(s->ub_predicted));
    json_object_set_new(o, "ub_guard_check", u);
}

static void s_txt_ubguard(wh_buf_t *b, const wh_summary_t *s)
{
    if (!s->ub_mode)
        return;
    if (!s->ub_enabled) {
        wh_buf_printf(b, "ub guard:    %s%s%s\n", s->ub_mode, s->ub_off_because ? "; off: " : "",
                      s->ub_off_because ? s->ub_off_because : "");
        return;
    }
    wh_buf_printf(b, "ub guard:    on, %d checks (%.1f ms in all, %.1f ms to set up), %d UBGuard "
                  "(%d not built, within predicted); the original raises %d such warnings\n",
                  s->ub_checks, s->ub_check_ms, s->ub_setup_ms, s->ub_guard, s->ub_predicted,
                  s->ub_original);
}

static void s_txt_precheck(wh_buf_t *b, const wh_summary_t *s)
{
    const wh_precheck_summary_t *pc = s->precheck;
    if (!pc)
        return;
    wh_buf_printf(b, "precheck:    %s, %d checks (%.1f ms in all, %.1f ms to set up), %d predicted",
                  s_nz(pc->mode), pc->checks, pc->check_ms, pc->setup_ms,
                  s->predicted - s->ub_predicted);
    if (pc->off_because)
        wh_buf_printf(b, "; off: %s", pc->off_because);
    if (pc->audit)
        wh_buf_printf(b, "; audit: %d of %d BuildFailed predicted, %d disagreements",
                      pc->build_failed_predicted, pc->build_failed, pc->disagreements);
    wh_buf_puts(b, "\n");
}

static void s_json_measures(json_t *o, const wh_summary_t *s)
{
    int tot = s->before, ars = s->before - s->after;
    int atrs = s->tree_before - s->tree_after, antrs = s->nontree_before - s->nontree_after;
    json_object_set_new(o, "ARS", json_integer(ars));
    s_json_measure(o, "PRS", ars, tot, 100.0);
    json_object_set_new(o, "ATRS", json_integer(atrs));
    s_json_measure(o, "PTRS", atrs, tot, 100.0);
    json_object_set_new(o, "ANTRS", json_integer(antrs));
    s_json_measure(o, "PNTRS", antrs, tot, 100.0);
    s_json_measure(o, "PrNTRS", antrs, s->nontree_before, 1.0);
    s_json_measure(o, "PrTRS", atrs, s->tree_before, 1.0);
}

static void s_summary_json(wh_record_t *r, const wh_summary_t *s)
{
    json_t *o = json_object();
    s_json_sizes(o, s);
    s_json_run(o, s);
    s_json_precheck(o, s->precheck);
    s_json_ubguard(o, s);
    s_json_measures(o, s);
    char *js = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (js) {
        wh_record_file(r, "summary.json", js, strlen(js));
        free(js);
    }
    json_decref(o);
}

static void s_txt_measures(wh_buf_t *b, const wh_summary_t *s)
{
    int tot = s->before, ars = s->before - s->after;
    int atrs = s->tree_before - s->tree_after, antrs = s->nontree_before - s->nontree_after;
    wh_buf_printf(b, "measures (thesis 5.6; cross-check only): ARS=%d PRS=%.1f%% ATRS=%d PTRS=%.1f%% "
                  "ANTRS=%d PNTRS=%.1f%%", ars, tot ? 100.0 * ars / tot : 0.0, atrs,
                  tot ? 100.0 * atrs / tot : 0.0, antrs, tot ? 100.0 * antrs / tot : 0.0);
    if (s->nontree_before)
        wh_buf_printf(b, " PrNTRS=%.3f", (double)antrs / s->nontree_before);
    else
        wh_buf_puts(b, " PrNTRS=undefined");
    if (s->tree_before)
        wh_buf_printf(b, " PrTRS=%.3f\n", (double)atrs / s->tree_before);
    else
        wh_buf_puts(b, " PrTRS=undefined\n");
}

static void s_summary_txt(wh_record_t *r, const wh_summary_t *s)
{
    wh_buf_t b = WH_BUF_INIT;
    wh_buf_printf(&b, "whittle run summary\n");
    wh_buf_printf(&b, "test:        %s\nfile:        %s\nproject:     %s\nalgorithm:   %s (ddmin %s)\njob id:      %s\n",
                  s_nz(s->test), s_nz(s->file), s_nz(s->project), s_nz(s->algorithm),
                  s_nz(s->ddmin), s_nz(s->job_id));
    wh_buf_printf(&b, "fingerprint: %s | %s | %s\n", s_nz(s->fp->test), s_nz(s->fp->location),
                  s_nz(s->fp->message));
    wh_buf_printf(&b, "statements:  %d -> %d (Tree %d -> %d, NonTree %d -> %d)\n", s->before,
                  s->after, s->tree_before, s->tree_after, s->nontree_before, s->nontree_after);
    wh_buf_printf(&b, "sweeps: %d  rounds: %d  candidates: %d  evaluated: %d  predicted: %d  "
                  "cached: %d  extra: %d\n", s->sweeps, s->rounds, s->candidates, s->evaluated,
                  s->predicted, s->cached, s->extra);
    if (s->infra_faults || s->n_out)
        wh_buf_printf(&b, "infra faults: %d (retried on other slots, never cached); slots out of "
                      "rotation: %d\n", s->infra_faults, s->n_out);
    wh_buf_puts(&b, "verdicts:");
    for (int v = 1; v < WH_V_COUNT; v++)
        wh_buf_printf(&b, " %s=%d", wh_verdict_name((wh_verdict_t)v), s->verdicts[v]);
    if (s->ub_guard)
        wh_buf_printf(&b, " %s=%d", wh_verdict_name(WH_V_UB_GUARD), s->ub_guard);
    wh_buf_printf(&b, "\nwall time:   %llu ms  (slots that judged: %d, cache: %s)\n",
                  (unsigned long long)s->wall_ms, r->nslots, s_nz(s->cache));
    s_txt_precheck(&b, s);
    s_txt_ubguard(&b, s);
    s_txt_measures(&b, s);
    wh_buf_printf(&b, "verified:    %s (%d verify run%s, %d verdict%s dropped as wrong)\n",
                  s->verified ? "yes, built and run afresh"
                  : s->not_verified ? "no, not verified: built and run afresh by the node "
                                      "that judged everything"
                                    : "no", s->verify_runs,
                  s->verify_runs == 1 ? "" : "s", s->dropped, s->dropped == 1 ? "" : "s");
    if (s->not_verified)
        wh_buf_printf(&b, "not verified: %s\n", s->not_verified);
    if (s->verified_by)
        wh_buf_printf(&b, "verified by: %s%s\n", s->verified_by,
                      s->second_opinion ? "" : " (its node judged every candidate built in this "
                                               "run: no second opinion)");
    wh_buf_printf(&b, "claims:      %d negative verdict%s judged again afresh, %d refuted\n",
                  s->claims_checked, s->claims_checked == 1 ? "" : "s", s->claims_refuted);
    if (s->audits)
        wh_buf_printf(&b, "cache audit: %d cached negative verdict%s judged afresh, %d wrong\n",
                      s->audits, s->audits == 1 ? "" : "s", s->audits_refuted);
    if (s->sanitizers)
        wh_buf_printf(&b, "sanitizers:  the verify run was built with -fsanitize=%s (the "
                      "project's compile command)\n", s->sanitizers);
    char *line = wh_record_fault_text(s);
    if (s->reference)
        wh_buf_printf(&b, "fault:       %s (reference %s%s)\n", line ? line : "", s->reference,
                      s->keep_fault ? ", --keep-fault" : ", --no-keep-fault");
    else
        wh_buf_printf(&b, "fault:       %s\n", line ? line : "fault not checked");
    free(line);
    if (s->ref_picked || s->ref_why)
        wh_buf_printf(&b, s->ref_picked ? "reference:   %s (--reference auto: %s)\n"
                                        : "reference:   none%s (%s)\n",
                      s_nz(s->ref_picked), s_nz(s->ref_why));
    wh_record_file(r, "summary.txt", b.buf, b.len);
    wh_buf_free(&b);
}

void wh_record_summary(wh_record_t *r, const wh_summary_t *s)
{
    s_summary_json(r, s);
    s_summary_txt(r, s);
}

char *wh_record_final_line(const wh_summary_t *s)
{
    char *line = NULL, *part = NULL;
    if (s->partial && (part = wh_record_final_plain(s)))
        line = wh_strdup_printf("PARTIAL (%s): %s", s->partial, part);
    else if (!s->partial)
        line = wh_record_final_plain(s);
    free(part);
    return line;
}

char *wh_record_final_plain(const wh_summary_t *s)
{
    char extra[96] = "";
    if (s->extra > 0)
        snprintf(extra, sizeof extra,
                 "; %d extra built beside them (after a round's winner, in parallel)", s->extra);
    return wh_strdup_printf("%d -> %d statements. %d candidates: %d evaluated, %d predicted, "
                            "%d from the cache%s. %d rounds, %d sweeps, %llu ms.",
                            s->before, s->after, s->candidates, s->evaluated - s->extra,
                            s->predicted, s->cached, extra, s->rounds, s->sweeps,
                            (unsigned long long)s->wall_ms);
}
