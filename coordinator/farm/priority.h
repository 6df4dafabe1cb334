/*
 * priority — the order a night's groups are reduced in, and the history
 * of root causes earlier nights saw (issue 35). With a batch budget
 * (`--batch-budget`) the order decides which groups are reduced before
 * the budget runs out.
 *
 * Order: larger groups first; then newer failures: a root cause no
 * earlier night under the same OUT folder saw (new) before one seen, and
 * among seen ones the more recently first seen first; then the smaller
 * representative test (statements; unknown counts as largest); then the
 * batch's own order.
 *
 * History: OUT/night-seen.json, root-cause key (batchgroup.h) -> the UTC
 * date it was first seen:
 *
 *   {"version": 1, "seen": [{"key": "...", "first_seen": "2026-12-08T00:50:12Z"}, ...]}
 *
 * An array, not an object, so that a key written twice is seen (the
 * earliest date wins) instead of silently dropped by the JSON reader.
 * A key is never forgotten: saving reads the file again and merges.
 *
 * The parser and the order are pure (no I/O); load and save read and
 * write the one file (save atomically). Any thread; no shared state.
 */
#ifndef WH_PRIORITY_H
#define WH_PRIORITY_H

#include <stddef.h>

typedef struct {
    char *key;
    char *first_seen; /* "YYYY-MM-DDTHH:MM:SSZ", compares as text */
} wh_seen_entry_t;

typedef struct {
    wh_seen_entry_t *v;
    size_t n, cap;
} wh_seen_t;

/* The history file's name in an OUT folder. */
#define WH_SEEN_FILE "night-seen.json"
/* At most this many keys are kept in a history, and read from a file (a
 * night adds its new root causes; the lookups are linear). */
#define WH_SEEN_MAX 10000

/* Parses a history file's text into s (emptied first). 0; or WH_EINVAL
 * with *err a one-line reason (malloc'ed) and s empty: not JSON, not an
 * object of version 1, "seen" not an array, an entry without a string
 * key or a well-formed date, more than WH_SEEN_MAX entries. A key given
 * twice keeps its earliest date. */
int wh_seen_parse(const char *text, wh_seen_t *s, char **err);
/* The history as a file's text (malloc'ed; NULL: out of memory), keys
 * sorted. */
char *wh_seen_format(const wh_seen_t *s);
/* The date key was first seen, or NULL when never. */
const char *wh_seen_get(const wh_seen_t *s, const char *key);
/* Records key as seen at date unless it was seen earlier. 0, WH_ENOMEM,
 * or WH_ETOOBIG past WH_SEEN_MAX keys. */
int wh_seen_add(wh_seen_t *s, const char *key, const char *date);
void wh_seen_clear(wh_seen_t *s);
/* Now as a history date (UTC). */
void wh_seen_now(char buf[32]);

/* Reads dir/night-seen.json into s. 0 (a missing file: empty); 1 when
 * the file is not a history (s empty, *warn one line naming the file and
 * why, malloc'ed); a negative WH_E* when it cannot be read (*warn too). */
int wh_seen_load(const char *dir, wh_seen_t *s, char **warn);
/* Writes s into dir/night-seen.json atomically, merged with what the
 * file holds by then (another run's keys are kept). A file that is not a
 * history is kept beside it as night-seen.json.corrupt. 0 or WH_E*. */
int wh_seen_save(const char *dir, const wh_seen_t *s);

/* One group to order. */
typedef struct {
    size_t members;         /* failures in the group */
    const char *first_seen; /* its root cause's date in the history, NULL: new */
    int size;               /* its representative's statements; < 0 unknown */
} wh_prio_item_t;

/* Writes into order[0, n) the indexes of items from the first to reduce
 * to the last (the rules above; ties keep the items' order). */
void wh_prio_order(const wh_prio_item_t *items, size_t n, size_t *order);

#endif
