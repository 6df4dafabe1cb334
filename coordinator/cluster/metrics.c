/* Prometheus text for a coordinator sample: see metrics.h. */
#include <string.h>

#include "metrics.h"

static void s_head(wh_buf_t *b, const char *name, const char *type, const char *help)
{
    wh_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void s_gauge(wh_buf_t *b, const char *name, const char *help, double v)
{
    s_head(b, name, "gauge", help);
    wh_buf_printf(b, "%s %.6g\n", name, v);
}

static void s_counter(wh_buf_t *b, const char *name, const char *help, uint64_t v)
{
    s_head(b, name, "counter", help);
    wh_buf_printf(b, "%s %llu\n", name, (unsigned long long)v);
}

/* A label value: backslash, quote and newline escaped (exposition format). */
static void s_label(wh_buf_t *b, const char *v)
{
    for (const char *p = v ? v : ""; *p; p++) {
        if (*p == '\\' || *p == '"')
            wh_buf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            wh_buf_puts(b, "\\n");
        else
            wh_buf_append(b, p, 1);
    }
}

static void s_jobs(const wh_metrics_sample_t *s, wh_buf_t *b)
{
    s_head(b, "whittle_jobs", "gauge", "Jobs by state now.");
    wh_buf_printf(b, "whittle_jobs{state=\"preparing\"} %d\n", s->jobs_preparing);
    wh_buf_printf(b, "whittle_jobs{state=\"running\"} %d\n", s->jobs_running);
    s_head(b, "whittle_jobs_total", "counter", "Jobs submitted, and how they ended.");
    wh_buf_printf(b, "whittle_jobs_total{outcome=\"submitted\"} %llu\n",
                  (unsigned long long)s->jobs_submitted);
    wh_buf_printf(b, "whittle_jobs_total{outcome=\"finished\"} %llu\n",
                  (unsigned long long)s->jobs_finished);
    wh_buf_printf(b, "whittle_jobs_total{outcome=\"failed\"} %llu\n",
                  (unsigned long long)s->jobs_failed);
    s_gauge(b, "whittle_queue_depth", "Candidates waiting for a slot.", s->queued);
}

static void s_slots(const wh_metrics_sample_t *s, wh_buf_t *b)
{
    s_head(b, "whittle_slots", "gauge", "Live node slots by state.");
    wh_buf_printf(b, "whittle_slots{state=\"busy\"} %d\n", s->busy);
    wh_buf_printf(b, "whittle_slots{state=\"warming\"} %d\n", s->warming);
    wh_buf_printf(b, "whittle_slots{state=\"idle\"} %d\n", s->idle);
    wh_buf_printf(b, "whittle_slots{state=\"out_of_rotation\"} %d\n", s->out_of_rotation);
    s_gauge(b, "whittle_nodes", "Distinct live nodes.", s->nodes);
    s_counter(b, "whittle_slots_dead_total", "Slots declared dead (silent too long).",
              s->dead_slots);
    s_counter(b, "whittle_requeued_total", "Candidates given back to the queue.", s->requeued);
}

static void s_judging(const wh_metrics_sample_t *s, wh_buf_t *b)
{
    s_counter(b, "whittle_candidates_judged_total", "Verdicts received from slots.", s->judged);
    s_gauge(b, "whittle_candidates_per_second", "Verdicts per second over the last minute.",
            s->judged_per_s);
    s_counter(b, "whittle_cache_lookups_total", "Candidates looked up in the verdict cache.",
              s->cache_lookups);
    s_counter(b, "whittle_cache_hits_total", "Lookups the cache answered.", s->cache_hits);
    s_gauge(b, "whittle_cache_hit_ratio", "Cache hits / lookups since start (0 before any).",
            s->cache_lookups ? (double)s->cache_hits / (double)s->cache_lookups : 0.0);
}

static void s_nodes(const wh_metrics_sample_t *s, wh_buf_t *b)
{
    static const struct {
        const char *name, *help;
        int field;
    } rows[] = {
        {"whittle_node_slots", "Live slots per node.", 0},
        {"whittle_node_verdicts_total", "Verdicts per node.", 1},
        {"whittle_node_infra_errors_total", "InfraError answers per node.", 2},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        s_head(b, rows[r].name, rows[r].field ? "counter" : "gauge", rows[r].help);
        for (int i = 0; i < s->n_nodes; i++) {
            const wh_metrics_node_t *n = &s->per_node[i];
            wh_buf_printf(b, "%s{node=\"", rows[r].name);
            s_label(b, n->name);
            unsigned long long v = rows[r].field == 0   ? (unsigned long long)n->slots
                                   : rows[r].field == 1 ? (unsigned long long)n->verdicts
                                                        : (unsigned long long)n->infra;
            wh_buf_printf(b, "\"} %llu\n", v);
        }
    }
}

void wh_metrics_render(const wh_metrics_sample_t *s, wh_buf_t *b)
{
    s_jobs(s, b);
    s_slots(s, b);
    s_judging(s, b);
    s_nodes(s, b);
    s_gauge(b, "whittle_uptime_seconds", "Seconds since the coordinator started.", s->uptime_s);
}
