/*
 * cache_cmd — the `whittle cache` command: look after the verdict cache
 * from the command line, for the embedded log and for Redis alike.
 *
 *   whittle cache stats [--cache SPEC]    what it holds, by verdict and kind
 *   whittle cache clear [--cache SPEC]    removes everything, bumps the generation
 *   whittle cache forget --node KEYID [--cache SPEC]
 *
 * SPEC as for `whittle reduce --cache` (default: the embedded cache in
 * $WHITTLE_CACHE_DIR, else $XDG_CACHE_HOME/whittle, else ~/.cache/whittle;
 * a redis:// SPEC also covers that embedded fallback). Kept out of
 * whittle_main.c, which only dispatches to it.
 */
#ifndef WH_CACHE_CMD_H
#define WH_CACHE_CMD_H

/* argv holds the words after "cache". Returns the exit status: 0 done, 2
 * usage error, 1 failure (one line on stderr). */
int wh_cache_cmd(int argc, char **argv);

#endif
