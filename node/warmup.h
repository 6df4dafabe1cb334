/*
 * warmup — one setup per node per workspace key. The slots of a node are
 * threads of one process sharing a workdir. The first slot that needs a
 * key's workspace copies the project into ws/<key>/golden and runs the setup
 * there; every slot, the first included, then clones golden into its own
 * ws/<key>/slot-K with `cp -a --reflink=auto` (modes, links and mtimes kept,
 * so a clone's first build recompiles only the test's translation unit).
 * Slots that need the key while its setup runs wait for it (their tick keeps
 * the heartbeats going) and clone when it is done.
 *
 * Build trees hold absolute paths (CMakeCache.txt, build.ninja, depfiles), so
 * a clone must be seen where the setup ran: every command of a key (setup,
 * build, test) runs in a private mount namespace where its own copy is
 * bind-mounted at the key's stable path ws/<key>/at (runner.h, mount_at).
 * A node with one slot clones too: its end-of-run verification runs in a
 * fresh workspace, a clone of the set-up copy rather than a second setup.
 * Where that is not permitted (no CAP_SYS_ADMIN, no unshare), each slot
 * copies the project and runs the setup itself, in place, as before;
 * WHITTLE_NO_MOUNTNS=1 forces that.
 *
 * Thread-safe: any slot thread may call any function.
 */
#ifndef WH_WARMUP_H
#define WH_WARMUP_H

#include <stdint.h>

#include "runner.h"

typedef struct wh_warmup wh_warmup_t;

/* Probes the mount namespace once (under workdir). NULL on allocation
 * failure only. */
wh_warmup_t *wh_warmup_new(const char *workdir);
void wh_warmup_destroy(wh_warmup_t **w);
/* 1 when workspaces are cloned and seen at a stable path. */
int wh_warmup_stable(const wh_warmup_t *w);

/* What preparing one slot's workspace needs; strings borrowed. */
typedef struct {
    const char *slot_dir;          /* workdir/ws/<key>/slot-K; must not exist; its parent exists */
    const char *project;           /* copied from (read only) */
    const char *const *exclude;    /* NULL-terminated absolute paths not to copy */
    const char *setup_cmd;         /* NULL or "": none */
    unsigned setup_timeout_ms;
    wh_tick_fn tick;               /* heartbeats and cancel while waiting or running */
    void *tick_arg;
    const char *test_file;         /* relative; its compile command is recorded (wsflags.h) */
    /* Called with tick_arg and every setup run this call makes (r NULL: it
     * could not start), for the infrastructure-fault check; may be NULL. */
    void (*on_setup)(void *arg, const wh_run_result_t *r, const char *log);
    /* NULL, or the user and sandbox of the setup (runas.h): the copy is
     * handed to that user before the setup runs. */
    const wh_runas_t *runas;
} wh_warm_req_t;

typedef struct {
    uint64_t setup_ms;   /* copy + setup this call ran (0 when it cloned only) */
    uint64_t clone_ms;   /* the clone of the set-up copy */
    uint64_t wait_ms;    /* waiting for another slot's setup */
    int setups;          /* setups this call ran: 0 or 1 */
    int cloned;          /* the workspace is a clone */
} wh_warm_stats_t;

/* Creates slot_dir ready to build (without the caller's ready mark).
 * Returns 0, or a negative code with *detail set: WH_ESETUP when the setup
 * failed (also for the slots that waited for it), WH_ECANCEL when tick
 * asked to stop. */
int wh_warmup_prepare(wh_warmup_t *w, const wh_warm_req_t *r, wh_warm_stats_t *st,
                      char **detail);

/* The stable path the commands of slot_dir's key see it at (malloc'ed), or
 * NULL when workspaces are used in place. */
char *wh_warmup_mount_at(const wh_warmup_t *w, const char *slot_dir);

/* What a ready mark says, so a workspace made in the other mode (a node
 * restarted with or without the namespace) is not taken for ready. */
const char *wh_warmup_mark(const wh_warmup_t *w);

/* Eviction of a key's set-up copy (".../golden"): removes it unless it is
 * being set up or cloned now. 0 when removed, -EBUSY when in use. */
int wh_warmup_retire(wh_warmup_t *w, const char *golden);

#endif
