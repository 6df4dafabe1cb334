/*
 * wh_tar — a project that travels as its files (`reduce --cluster --snapshot
 * tar`): packed by the client into a gzip'd POSIX tar (ustar, with pax
 * records for names over ustar's fields), content-addressed by the sha256
 * of those bytes, unpacked by the coordinator and the nodes into a folder
 * of their own.
 *
 * Packing (wh_tar_pack) leaves out what the job's setup recreates or what
 * is not the project's: every `.git`, folders named build* (as the job
 * identity does: identity.h), the absolute folders in skip (the run
 * folders) and the --ignore globs. Entries are sorted, with uid, gid and
 * mtime 0 and permission bits reduced to 0755/0644, so the same files make
 * the same bytes and the same hash on any machine. Symlinks travel as
 * links, never followed; one that is absolute or leads out of the project
 * is refused, as is a special file (a fifo, a socket, a device), each with
 * one line naming the path.
 *
 * Unpacking (wh_tar_unpack) trusts nothing in the bytes: only files,
 * folders, symlinks and pax path records are taken; an absolute name, a
 * ".." component, a hard link, a link whose target is absolute or leaves
 * the tree, a second entry of one name and an entry below a symlink are
 * refused (every folder on the way is opened with O_NOFOLLOW, every file
 * created with O_EXCL), and the sizes are capped. On any refusal the
 * partial tree is removed. Run it with the identity that should own the
 * files (node/runas.h wh_runas_as_user): it creates them as the caller.
 */
#ifndef WH_TAR_H
#define WH_TAR_H

#include <stddef.h>
#include <stdint.h>

/* The caps of a tar snapshot: the packed (compressed) bytes that travel,
 * the sum of its files' sizes once unpacked, and its entries. */
#define WH_TAR_MAX_PACKED (64ull << 20)
#define WH_TAR_MAX_UNPACKED (1ull << 30)
#define WH_TAR_MAX_ENTRIES 200000u

typedef struct {
    uint64_t max_packed;   /* 0: WH_TAR_MAX_PACKED */
    uint64_t max_unpacked; /* 0: WH_TAR_MAX_UNPACKED */
} wh_tar_limits_t;

/* Packs folder dir (absolute). skip: absolute paths left out (NULL
 * entries ignored); ignored(ignore, nignore, rel): 1 when the path rel
 * (relative to dir) is left out by the --ignore globs (the reduce
 * module's identity.h matching; NULL: none). On
 * success *out (malloc'ed) holds the gzip'd tar, *out_len its size and
 * *files the number of files. A project over a limit is refused with
 * WH_ETOOBIG and *err naming the limit and how much the project has; a
 * link out of the project or a special file with WH_EINVAL; a read error
 * with its -errno. */
typedef int (*wh_tar_ignored_fn)(char *const *ignore, int nignore, const char *rel);
int wh_tar_pack(const char *dir, const char *const *skip, int nskip, wh_tar_ignored_fn ignored,
                char *const *ignore, int nignore, const wh_tar_limits_t *lim, uint8_t **out, size_t *out_len,
                unsigned *files, char **err);

/* Unpacks data into dest, which must not exist (it is created, mode 0755,
 * as the caller's identity). 0, or a negative code with *err (one line
 * naming the entry and why) and nothing left at dest. */
int wh_tar_unpack(const uint8_t *data, size_t len, const char *dest, const wh_tar_limits_t *lim,
                  char **err);

/* True when s is 64 lower-case hex digits (a sha256 as the wire carries it). */
int wh_tar_sha_ok(const char *s);

/* Human size: "12.3 MiB", "512 KiB", "17 bytes" into buf. */
const char *wh_tar_size_str(uint64_t n, char *buf, size_t cap);

#endif
