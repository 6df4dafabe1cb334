/*
 * pool_beat — the pool's heartbeat thread. The poll thread may be away for
 * seconds (a farm of 200 jobs tended in one turn, rendering, cache round
 * trips, a loaded machine); the slots must still hear from the coordinator
 * every hb_ms, or each takes it for lost, reconnects under a new routing id
 * and its old one is declared dead with its candidate requeued. So a thread
 * of its own sends the HEARTBEATs, and the poll thread reads what comes in
 * (reading late loses nothing: messages wait in the socket, and liveness is
 * judged on the clock of the last read, pool.c).
 *
 * The ROUTER socket is shared under p->sock_mu: the beat thread holds it
 * while it sends, the poll thread while it sends and receives. The poll
 * thread waits on the socket's ZMQ_FD without the lock (pool.c,
 * s_poll_all); a send here may take the socket's wake-up with it, so after
 * sending the beat thread wakes the poll through p->beat_wake when input
 * waits. The slot list is changed under the lock too, so the thread may
 * walk it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>
#include <zmq.h>

#include "pool_int.h"

/* Sends the HEARTBEATs that are due, under sock_mu; the soonest time one
 * is due next (wh_now_ms). */
static uint64_t s_beat_once(wh_pool_t *p)
{
    uint64_t now = wh_now_ms(), next = now + p->hb_ms;
    int sent = 0;
    for (s_slot_t *s = p->slots; s; s = s->next) {
        if (now - s->last_tx >= p->hb_ms && !atomic_load(&s->gone)) {
            wh_msg_t hb = {0};
            hb.type = WH_MSG_HEARTBEAT;
            int rc = wh_wire_send_to(p->sock, s->ident, s->ident_len, &hb, ZMQ_DONTWAIT);
            if (rc == 0) {
                s->last_tx = now;
                sent = 1;
            } else if (rc == -EHOSTUNREACH) {
                atomic_store(&s->gone, 1); /* the poll thread reaps it */
            }
        }
        if (s->last_tx + p->hb_ms < next)
            next = s->last_tx + p->hb_ms;
    }
    int ev = 0;
    size_t sz = sizeof ev;
    if (sent && zmq_getsockopt(p->sock, ZMQ_EVENTS, &ev, &sz) == 0 && (ev & ZMQ_POLLIN))
        wh_wake_signal(p->beat_wake);
    return next;
}

static void *s_beat_main(void *arg)
{
    wh_pool_t *p = arg;
    pthread_mutex_lock(&p->sock_mu);
    while (!p->beat_stop) {
        uint64_t next = s_beat_once(p), now = wh_now_ms();
        /* At least 10 ms: a slot whose send keeps failing (a full queue)
         * is not retried in a busy loop. */
        wh_cond_wait_ms(&p->beat_cv, &p->sock_mu, next > now + 10 ? next - now : 10);
    }
    pthread_mutex_unlock(&p->sock_mu);
    return NULL;
}

int pl_beat_start(wh_pool_t *p)
{
    if (wh_cond_init_mono(&p->beat_cv) != 0)
        return -1;
    if ((p->beat_wake = wh_pool_wake_open(p)) < 0 ||
        pthread_create(&p->beat, NULL, s_beat_main, p) != 0) {
        wh_pool_wake_close(p, p->beat_wake);
        p->beat_wake = -1;
        pthread_cond_destroy(&p->beat_cv);
        return -1;
    }
    p->beat_on = 1;
    return 0;
}

void pl_beat_stop(wh_pool_t *p)
{
    if (!p->beat_on)
        return;
    pthread_mutex_lock(&p->sock_mu);
    p->beat_stop = 1;
    pthread_cond_signal(&p->beat_cv);
    pthread_mutex_unlock(&p->sock_mu);
    pthread_join(p->beat, NULL);
    pthread_cond_destroy(&p->beat_cv);
    wh_pool_wake_close(p, p->beat_wake);
    p->beat_wake = -1;
    p->beat_on = 0;
}
