/*
 * wh_redisc — whittle's one Redis client, shared by the verdict cache's
 * Redis back end and the job journal's: it parses the redis:// URL, finds
 * the password, connects with a connect and a command timeout, sends AUTH
 * and SELECT, and reconnects. The back ends then issue their own commands
 * through the hiredis context it hands out (wh_redisc_context), or through
 * wh_redisc_command, which reconnects once when the connection is gone.
 * This header does not include hiredis; only wh_redisc.c and the two back
 * ends do.
 *
 * URL: redis://[USER[:PASSWORD]@]HOST[:PORT][/DB]. HOST may be [IPv6];
 * PORT is 1..65535 (default 6379), DB 0..INT_MAX (default 0); USER and
 * PASSWORD are percent-decoded (%40 for '@', %3A for ':', %2F for '/'; a
 * bad escape or %00 is refused).
 *
 * The password, first found wins:
 *   1. the URL's PASSWORD (an empty one counts as none);
 *   2. $WHITTLE_REDIS_PASSWORD, when not empty;
 *   3. a password file: wh_redisc_opts_t.password_file, else
 *      $WHITTLE_REDIS_PASSWORD_FILE when not empty. Its content without
 *      the trailing newlines; an unreadable or empty file is an error (it
 *      was named on purpose).
 * With a password, connecting sends AUTH USER PASSWORD (a Redis 6 ACL
 * user) or AUTH PASSWORD (requirepass). A URL that names a user but no
 * password is refused when none of the three gives one.
 *
 * The password is never printed: wh_redisc_url() and every message show
 * the URL with it masked ("redis://wh:***@host:6390/0").
 *
 * One owner thread per client. SIGPIPE is blocked around the I/O of the
 * calls below (per thread, see wh_redisc_nopipe_begin).
 */
#ifndef WH_REDISC_H
#define WH_REDISC_H

#include <signal.h>

struct redisContext; /* hiredis */
struct redisReply;   /* hiredis */

typedef struct wh_redisc wh_redisc_t;

#define WH_REDISC_TIMEOUT_MS 1000 /* the default connect and command timeout */

typedef struct {
    const char *password_file; /* NULL: $WHITTLE_REDIS_PASSWORD_FILE */
    unsigned connect_ms;       /* 0: WH_REDISC_TIMEOUT_MS */
    unsigned command_ms;       /* 0: WH_REDISC_TIMEOUT_MS; also bounds each reply */
} wh_redisc_opts_t;

/* Parses url and finds the password; does not connect. opts may be NULL
 * (the defaults). NULL with *err set (one line, the password masked) for a
 * bad URL, a user without a password, an unreadable password file, or no
 * memory. */
wh_redisc_t *wh_redisc_new(const char *url, const wh_redisc_opts_t *opts, char **err);
/* Closes the connection, wipes the password, frees *c and sets it NULL.
 * NULL or *c NULL is fine. */
void wh_redisc_destroy(wh_redisc_t **c);

/* The URL with the password masked: safe to print. Owned by c. */
const char *wh_redisc_url(const wh_redisc_t *c);
const char *wh_redisc_host(const wh_redisc_t *c);
int wh_redisc_port(const wh_redisc_t *c);
int wh_redisc_db(const wh_redisc_t *c);

/* (Re)connects: drops any connection, then connects, AUTHs (when there is
 * a password) and SELECTs the db (a PING for db 0), so that Redis is known
 * to answer. 0; WH_EAUTH when Redis refused the credentials (NOAUTH,
 * WRONGPASS, NOPERM: no retry will help); WH_EUNAVAIL for anything else
 * (refused connection, timeout, SELECT of a db that does not exist). On
 * failure *err, when err is not NULL, is one line: "redis at URL refused
 * the credentials: WRONGPASS ...", "redis at URL refused access without a
 * password: NOAUTH ...", "redis at URL unavailable (Connection refused)";
 * wh_redisc_why() has the bare reason. */
int wh_redisc_connect(wh_redisc_t *c, char **err);
/* Drops the connection (a later wh_redisc_command reconnects). */
void wh_redisc_disconnect(wh_redisc_t *c);
/* The live hiredis context, or NULL while not connected. Owned by c: a
 * caller that finds it broken calls wh_redisc_disconnect, never
 * redisFree. */
struct redisContext *wh_redisc_context(wh_redisc_t *c);
/* Why the last connect or command failed, as hiredis or Redis said it
 * ("Connection refused", "WRONGPASS invalid username-password pair ...");
 * "" when nothing failed yet. Owned by c, valid until the next call. */
const char *wh_redisc_why(const wh_redisc_t *c);

/* Runs one command (argv[0..argc), lengths argl, or NULL for C strings),
 * connecting first when not connected, and once more on a fresh
 * connection when it gets no answer: so for idempotent commands only.
 * 0 with *reply set (caller frees it with wh_redisc_reply_free or
 * freeReplyObject) when reply is not NULL; WH_EAUTH (credentials refused,
 * at connect or as the command's error reply); WH_EIO for another error
 * reply ("redis at URL refused HSET: ERR ..."); WH_EUNAVAIL when Redis did
 * not answer ("redis at URL does not answer (Connection refused)"). *err
 * set on failure when err is not NULL. */
int wh_redisc_command(wh_redisc_t *c, int argc, const char **argv, const size_t *argl,
                      struct redisReply **reply, char **err);
void wh_redisc_reply_free(struct redisReply *reply);

/* hiredis writes with write(2): a peer that died mid-batch would raise
 * SIGPIPE and kill the process. A back end that does its own I/O on the
 * context wraps it in begin/end, which block SIGPIPE in the calling thread
 * and swallow one that the I/O caused, leaving the process's signal setup
 * alone. Pairs do not nest across threads. */
typedef struct {
    sigset_t old;
    int was_pending;
} wh_redisc_nopipe_t;
void wh_redisc_nopipe_begin(wh_redisc_nopipe_t *p);
void wh_redisc_nopipe_end(wh_redisc_nopipe_t *p);

#endif
