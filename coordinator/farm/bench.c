/*
 * bench — bench.json and bench.txt of a mutate --reduce run (see bench.h).
 */
#include "bench.h"

#include "wh_common.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sums over the pairs (the default walk's figures unless named gold_). */
typedef struct {
    long runs, ok, before, after, ars, atrs, antrs, builds, predicted, run_ms;
    long gold_after, gold_builds, gold_predicted, gold_ms;
    long kept, lost, tp, fp, fn;
} s_tot_t;

/* The summary.json of the one run folder under dir (NULL when none). */
static json_t *s_summary(const char *dir)
{
    DIR *d = opendir(dir);
    json_t *o = NULL;
    struct dirent *e;
    while (d && !o && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "latest") || !strcmp(e->d_name, "references"))
            continue;
        char *p = wh_strdup_printf("%s/%s/summary.json", dir, e->d_name);
        o = p && wh_is_file(p) ? json_load_file(p, 0, NULL) : NULL;
        free(p);
    }
    if (d)
        closedir(d);
    return o;
}

static long s_int(const json_t *o, const char *k)
{
    return (long)json_integer_value(json_object_get(o, k));
}

/* A percentage or ratio, null when the denominator is 0. */
static json_t *s_ratio(double num, double den, double scale)
{
    return den > 0 ? json_real(num / den * scale) : json_null();
}

/* TP, FP, FN of the default walk's removed_units against the gold walk's. */
static void s_confusion(const json_t *hdd, const json_t *gold, long *tp, long *fp, long *fn)
{
    const json_t *a = json_object_get(hdd, "removed_units"), *b = json_object_get(gold, "removed_units");
    long n = s_int(hdd, "statements_before");
    unsigned char *in = calloc((size_t)n + 1, 1);
    *tp = *fp = *fn = 0;
    size_t i;
    const json_t *v;
    json_array_foreach(b, i, v)
        if (in && json_integer_value(v) >= 0 && json_integer_value(v) < n)
            in[json_integer_value(v)] |= 2;
    json_array_foreach(a, i, v)
        if (in && json_integer_value(v) >= 0 && json_integer_value(v) < n)
            in[json_integer_value(v)] |= 1;
    for (long u = 0; in && u < n; u++) {
        *tp += in[u] == 3;
        *fp += in[u] == 1;
        *fn += in[u] == 2;
    }
    free(in);
}

static json_t *s_fault(const json_t *sum)
{
    json_t *k = json_object_get(sum, "fault_kept");
    return k ? json_incref(k) : json_null();
}

/* The bench.json row of one pair, added into t. */
static json_t *s_row(const wh_farm_t *f, size_t p, s_tot_t *t)
{
    const wh_farm_pair_t *pr = &f->pairs[p];
    const wh_farm_mutant_t *m = &f->mutants[pr->mutant];
    char *dir = wh_farm_pair_dir(f, p);
    char *dh = wh_strdup_printf("%s/hdd", dir), *dl = wh_strdup_printf("%s/linear", dir);
    json_t *h = s_summary(dh), *g = s_summary(dl);
    json_t *row = json_pack("{s:s,s:s,s:s}", "mutant", m->id, "operator", m->op, "test", pr->test);
    t->runs++;
    json_object_set_new(row, "ok", json_boolean(h && g));
    if (h && g) {
        long before = s_int(h, "statements_before"), after = s_int(h, "statements_after");
        long atrs = s_int(h, "tree_before") - s_int(h, "tree_after");
        long antrs = s_int(h, "nontree_before") - s_int(h, "nontree_after");
        long tp, fp, fn;
        s_confusion(h, g, &tp, &fp, &fn);
        json_object_set_new(row, "statements_before", json_integer(before));
        json_object_set_new(row, "statements_after", json_integer(after));
        json_object_set_new(row, "ARS", json_integer(before - after));
        json_object_set_new(row, "PRS", s_ratio((double)(before - after), (double)before, 100));
        json_object_set_new(row, "ATRS", json_integer(atrs));
        json_object_set_new(row, "PTRS", s_ratio((double)atrs, (double)before, 100));
        json_object_set_new(row, "ANTRS", json_integer(antrs));
        json_object_set_new(row, "PNTRS", s_ratio((double)antrs, (double)before, 100));
        json_object_set_new(row, "builds", json_integer(s_int(h, "evaluated")));
        json_object_set_new(row, "predicted_builds", json_integer(s_int(h, "predicted")));
        json_object_set_new(row, "wall_ms", json_integer(s_int(h, "wall_ms")));
        json_object_set_new(row, "fault_kept", s_fault(h));
        json_object_set_new(row, "linear", json_pack("{s:I,s:I,s:I,s:I,s:o}",
            "statements_after", (json_int_t)s_int(g, "statements_after"),
            "builds", (json_int_t)s_int(g, "evaluated"), "predicted_builds", (json_int_t)s_int(g, "predicted"),
            "wall_ms", (json_int_t)s_int(g, "wall_ms"), "fault_kept", s_fault(g)));
        json_object_set_new(row, "tp", json_integer(tp));
        json_object_set_new(row, "fp", json_integer(fp));
        json_object_set_new(row, "fn", json_integer(fn));
        json_object_set_new(row, "precision", s_ratio((double)tp, (double)(tp + fp), 1));
        json_object_set_new(row, "recall", s_ratio((double)tp, (double)(tp + fn), 1));
        t->ok++, t->before += before, t->after += after, t->ars += before - after;
        t->atrs += atrs, t->antrs += antrs, t->builds += s_int(h, "evaluated");
        t->predicted += s_int(h, "predicted"), t->run_ms += s_int(h, "wall_ms");
        t->gold_after += s_int(g, "statements_after"), t->gold_builds += s_int(g, "evaluated");
        t->gold_predicted += s_int(g, "predicted"), t->gold_ms += s_int(g, "wall_ms");
        t->kept += json_is_true(json_object_get(h, "fault_kept"));
        t->lost += !json_is_true(json_object_get(h, "fault_kept"));
        t->tp += tp, t->fp += fp, t->fn += fn;
    }
    json_decref(h), json_decref(g);
    free(dir), free(dh), free(dl);
    return row;
}

static json_t *s_total(const s_tot_t *t, uint64_t wall_ms)
{
    json_t *o = json_object();
    json_object_set_new(o, "runs", json_integer(t->runs));
    json_object_set_new(o, "reduced", json_integer(t->ok));
    json_object_set_new(o, "statements_before", json_integer(t->before));
    json_object_set_new(o, "statements_after", json_integer(t->after));
    json_object_set_new(o, "ARS", json_integer(t->ars));
    json_object_set_new(o, "PRS", s_ratio((double)t->ars, (double)t->before, 100));
    json_object_set_new(o, "ATRS", json_integer(t->atrs));
    json_object_set_new(o, "PTRS", s_ratio((double)t->atrs, (double)t->before, 100));
    json_object_set_new(o, "ANTRS", json_integer(t->antrs));
    json_object_set_new(o, "PNTRS", s_ratio((double)t->antrs, (double)t->before, 100));
    json_object_set_new(o, "builds", json_integer(t->builds));
    json_object_set_new(o, "predicted_builds", json_integer(t->predicted));
    json_object_set_new(o, "wall_ms", json_integer((json_int_t)wall_ms));
    json_object_set_new(o, "run_wall_ms", json_integer(t->run_ms));
    json_object_set_new(o, "fault_kept", json_integer(t->kept));
    json_object_set_new(o, "linear", json_pack("{s:I,s:I,s:I,s:I}", "statements_after", (json_int_t)t->gold_after,
        "builds", (json_int_t)t->gold_builds, "predicted_builds", (json_int_t)t->gold_predicted,
        "run_wall_ms", (json_int_t)t->gold_ms));
    json_object_set_new(o, "tp", json_integer(t->tp));
    json_object_set_new(o, "fp", json_integer(t->fp));
    json_object_set_new(o, "fn", json_integer(t->fn));
    json_object_set_new(o, "precision", s_ratio((double)t->tp, (double)(t->tp + t->fp), 1));
    json_object_set_new(o, "recall", s_ratio((double)t->tp, (double)(t->tp + t->fn), 1));
    return o;
}

/* "0.875" or "-" for a null ratio; "%.1f" for percentages. */
static const char *s_num(char *buf, size_t n, const json_t *v, const char *fmt)
{
    if (json_is_number(v))
        snprintf(buf, n, fmt, json_number_value(v));
    else
        snprintf(buf, n, "-");
    return buf;
}

/* "kept", "LOST", "-" (not checked), or the count in the total. */
static const char *s_kept(char *buf, size_t n, const json_t *v)
{
    if (json_is_integer(v))
        snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    else
        snprintf(buf, n, "%s", json_is_true(v) ? "kept" : json_is_false(v) ? "LOST" : "-");
    return buf;
}

/* One line of the table, from a row or the total. */
static void s_txt_line(wh_buf_t *b, const char *name, const json_t *r)
{
    char p[6][32];
    const json_t *g = json_object_get(r, "linear");
    wh_buf_printf(b, "%-32s %4ld %4ld %4ld %6s %4ld %6s %4ld %6s %6ld %5ld %8ld %5s %5ld %6ld %3ld %3ld %3ld %6s %6s\n",
        name, s_int(r, "statements_before"), s_int(r, "statements_after"), s_int(r, "ARS"),
        s_num(p[0], 32, json_object_get(r, "PRS"), "%.1f"), s_int(r, "ATRS"),
        s_num(p[1], 32, json_object_get(r, "PTRS"), "%.1f"), s_int(r, "ANTRS"),
        s_num(p[2], 32, json_object_get(r, "PNTRS"), "%.1f"), s_int(r, "builds"),
        s_int(r, "predicted_builds"), s_int(r, "wall_ms"),
        s_kept(p[5], 32, json_object_get(r, "fault_kept")),
        s_int(g, "statements_after"), s_int(g, "builds"), s_int(r, "tp"), s_int(r, "fp"), s_int(r, "fn"),
        s_num(p[3], 32, json_object_get(r, "precision"), "%.3f"),
        s_num(p[4], 32, json_object_get(r, "recall"), "%.3f"));
}

static char *s_txt(const json_t *rows, const json_t *tot)
{
    wh_buf_t b = {0};
    wh_buf_printf(&b, "%-32s %4s %4s %4s %6s %4s %6s %4s %6s %6s %5s %8s %5s %5s %6s %3s %3s %3s %6s %6s\n",
                  "pair (mutant-test)", "stm", "left", "ARS", "PRS%", "ATRS", "PTRS%", "ANTR", "PNTRS%",
                  "builds", "pred", "wall_ms", "fault", "gold", "gbuild", "TP", "FP", "FN", "prec", "recall");
    size_t i;
    const json_t *r;
    json_array_foreach(rows, i, r) {
        char name[128];
        snprintf(name, sizeof name, "%s-%s", json_string_value(json_object_get(r, "mutant")),
                 json_string_value(json_object_get(r, "test")));
        if (json_is_true(json_object_get(r, "ok")))
            s_txt_line(&b, name, r);
        else
            wh_buf_printf(&b, "%-32s reduction failed: no summary (see its .log)\n", name);
    }
    s_txt_line(&b, "total", tot);
    wh_buf_printf(&b, "fault kept on %ld of %ld; gold = --algorithm linear (statements left, builds); "
                  "precision and recall of the default walk against it, statement by statement\n",
                  s_int(tot, "fault_kept"), s_int(tot, "runs"));
    return wh_buf_detach(&b);
}

int wh_bench_write(const wh_farm_t *f, uint64_t wall_ms)
{
    s_tot_t t = {0};
    json_t *rows = json_array();
    for (size_t p = 0; p < f->n_pairs; p++)
        json_array_append_new(rows, s_row(f, p, &t));
    json_t *tot = s_total(&t, wall_ms);
    json_t *doc = json_pack("{s:O,s:O}", "runs", rows, "total", tot);
    char *js = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER), *txt = s_txt(rows, tot);
    char *pj = wh_path_join(f->out, "bench.json"), *pt = wh_path_join(f->out, "bench.txt");
    int rc = js && txt && wh_write_file(pj, js, strlen(js)) == 0 && wh_write_file(pt, txt, strlen(txt)) == 0 ? 0 : -1;
    if (rc < 0)
        fprintf(stderr, "whittle: error: cannot write '%s'\n", pj);
    char pr[32], pp[32], rr[32];
    printf("reduced %ld of %ld killing pairs: %ld -> %ld statements (PRS %s%%), %ld builds, %ld predicted, "
           "fault kept on %ld; precision %s recall %s against --algorithm linear (TP %ld FP %ld FN %ld); %llu ms\n",
           t.ok, t.runs, t.before, t.after, s_num(pr, 32, json_object_get(tot, "PRS"), "%.1f"), t.builds,
           t.predicted, t.kept, s_num(pp, 32, json_object_get(tot, "precision"), "%.3f"),
           s_num(rr, 32, json_object_get(tot, "recall"), "%.3f"), t.tp, t.fp, t.fn,
           (unsigned long long)wall_ms);
    free(js), free(txt), free(pj), free(pt);
    json_decref(doc), json_decref(rows), json_decref(tot);
    if (rc < 0)
        return -1;
    return t.ok == t.runs && t.lost == 0 ? 0 : 1;
}
