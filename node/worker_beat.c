/*
 * worker_beat — the node's heartbeat thread. A slot's own thread may be
 * away for minutes (a set-up: cmake and a whole build, a project copy, a
 * clone, an eviction scan, a wait for another slot's set-up) or starved of
 * the CPU on a loaded machine; the coordinator takes a slot silent for 3
 * heartbeats for dead and requeues its candidate. So one thread per node,
 * which does nothing else, sends every slot's HEARTBEAT when it is due, on
 * the slot's socket under the slot's lock (worker_int.h). The slot's
 * thread still reads its socket itself.
 */
#define _GNU_SOURCE
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "worker_int.h"

static void *s_beat_main(void *arg)
{
    wh_node_t *n = arg;
    pthread_mutex_lock(&n->beat_mu);
    n->beat_cont = wk_continued();
    while (!atomic_load(&n->stop)) {
        uint64_t now = wh_now_ms(), next = now + n->hb_ms;
        /* Back from a stop (SIGSTOP, a sleeping machine) longer than 3
         * heartbeats: the coordinator has dropped every session of this
         * process, and a heartbeat on one would bring back a slot its
         * thread is about to join again anew (e2e_node_sigstop: declared
         * dead twice, joined three times). SIGCONT's handler may run a
         * moment after this thread wakes: a long gap waits for it. */
        unsigned cont = wk_continued();
        if (n->beat_last && now - n->beat_last >= 3u * n->hb_ms && cont == n->beat_cont) {
            usleep(50 * 1000);
            cont = wk_continued();
        }
        if (cont != n->beat_cont && n->beat_last && now - n->beat_last >= 3u * n->hb_ms)
            for (int i = 0; i < n->nslots; i++) {
                pthread_mutex_lock(&n->slots[i].mu);
                n->slots[i].stale = 1;
                pthread_mutex_unlock(&n->slots[i].mu);
            }
        n->beat_cont = cont;
        n->beat_last = now;
        for (int i = 0; i < n->nslots; i++) {
            wk_slot_t *s = &n->slots[i];
            pthread_mutex_lock(&s->mu);
            if (s->sock && !s->stale) {
                uint64_t tx = s->last_tx;
                wk_beat_locked(s, now);
                /* A send may take the socket's signal that input waits
                 * (ZMQ_FD), while the slot's thread waits on it: wake it. */
                int ev = 0;
                size_t sz = sizeof ev;
                if (s->last_tx != tx && zmq_getsockopt(s->sock, ZMQ_EVENTS, &ev, &sz) == 0 &&
                    (ev & ZMQ_POLLIN))
                    wh_wake_signal(s->wake_fd);
                if (s->last_tx + n->hb_ms < next)
                    next = s->last_tx + n->hb_ms;
            }
            pthread_mutex_unlock(&s->mu);
        }
        /* At least 10 ms: a send that keeps failing (a full queue while the
         * coordinator is away) is not retried in a busy loop. */
        now = wh_now_ms();
        wh_cond_wait_ms(&n->beat_cv, &n->beat_mu, next > now + 10 ? next - now : 10);
    }
    pthread_mutex_unlock(&n->beat_mu);
    return NULL;
}

int wk_beat_start(wh_node_t *n)
{
    if (wh_cond_init_mono(&n->beat_cv) != 0)
        return -1;
    pthread_mutex_init(&n->beat_mu, NULL);
    if (pthread_create(&n->beat, NULL, s_beat_main, n) != 0) {
        pthread_cond_destroy(&n->beat_cv);
        pthread_mutex_destroy(&n->beat_mu);
        return -1;
    }
    n->beat_on = 1;
    return 0;
}

void wk_beat_stop(wh_node_t *n)
{
    if (!n->beat_on)
        return;
    pthread_mutex_lock(&n->beat_mu);
    pthread_cond_signal(&n->beat_cv);
    pthread_mutex_unlock(&n->beat_mu);
    pthread_join(n->beat, NULL);
    pthread_cond_destroy(&n->beat_cv);
    pthread_mutex_destroy(&n->beat_mu);
    n->beat_on = 0;
}
