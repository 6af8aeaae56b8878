/* SPDX-License-Identifier: BSD-3-Clause */
/* names.h: names for file handles, learned from the wire.
 *
 * A bounded cache from a file handle to (parent handle, name): MOUNT replies
 * give export roots (path -> root handle), LOOKUP, CREATE, MKDIR, SYMLINK,
 * MKNOD, LINK and READDIRPLUS replies give a child's handle for (directory,
 * name). RENAME replies carry no handle, so the same entries are also indexed
 * by (directory, name) to find the object that moved (same capacity, evicted
 * together with the handle index). A handle has one name here: the latest the
 * wire showed. After LINK (RFC 1813 §3.3.15) both names are valid and the new
 * one is kept, as a LOOKUP of either name would; a name that is removed or
 * renamed over keeps labelling its old object (calls made to it before are
 * still shown under it) but no longer leads to it. A path is built
 * by walking parents: "/export/dir/file" when the chain reaches an export
 * root, ".../dir/file" when it stops short, the handle in hex when nothing is
 * known. Fixed capacity, allocated once; when full, the least recently
 * learned or used entry is replaced (counted in `evicted`). Handles are keyed
 * by a seeded 64-bit hash of their bytes. Names are stored as raw bytes from
 * the wire, at most 255 of each (a longer name is kept as its first 255
 * bytes, and looked up the same way): escape them before they reach a
 * terminal. In a path a NUL inside a name is written as the pair C0 80 (as
 * Java's modified UTF-8 does), so the path stays one C string; term_escape()
 * shows it as \x00 and the JSON writer as \u0000. */
#ifndef NFSSCOPE_NAMES_H
#define NFSSCOPE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"

struct names;

/* NULL on allocation failure. */
struct names *names_new(size_t cap, uint64_t seed);
void names_free(struct names *n); /* NULL is a no-op */

/* `child` is called `name` in directory `parent`. */
void names_learn(struct names *n, struct bytes parent, struct bytes name, struct bytes child);
/* The same with the parent as its key, names_key(n, parent) (a listing's
 * entries share theirs). */
void names_learn_under(struct names *n, uint64_t parent_key, struct bytes name,
                       struct bytes child);
/* A successful RENAME (RFC 1813 §3.3.14): the object named (from_dir,
 * from_name) is now (to_dir, to_name); an object to_name named before is
 * replaced. Returns true if the moved object's handle was known. */
bool names_rename(struct names *n, struct bytes from_dir, struct bytes from_name,
                  struct bytes to_dir, struct bytes to_name);
/* A successful REMOVE or RMDIR (§3.3.12, §3.3.13): (dir, name) leads nowhere. */
void names_unlink(struct names *n, struct bytes dir, struct bytes name);
/* `root` is the root of the export mounted as `path`. */
void names_learn_export(struct names *n, struct bytes path, struct bytes root);

/* The handle's path into buf (NUL-terminated, cut to bufsz); returns true if
 * any name is known. Never fails: the fallback is the handle in hex. */
bool names_path(const struct names *n, struct bytes fh, char *buf, size_t bufsz);

/* The export the handle lies in, as its root's 64-bit key, or 0 when the
 * chain does not reach an export root. names_export_path() names it. */
uint64_t names_export_of(const struct names *n, struct bytes fh);
/* names_export_of() remembered for one handle (zeroed: nothing yet). An
 * answer that reached an export root holds while no entry leaves the
 * cache, becomes a root or moves to another parent; one that did not, also
 * while no entry is given a parent where it had none (the chain may now go
 * further). */
struct names_export_memo {
    uint64_t export_key;
    uint64_t changed, extended; /* the cache's counts when it was found */
};
/* The same answer as names_export_of(n, fh), from *m when it still holds,
 * else found and kept in *m: m must always be asked with the same fh. */
uint64_t names_export_of_memo(const struct names *n, struct bytes fh,
                              struct names_export_memo *m);
bool names_export_path(const struct names *n, uint64_t export_key, char *buf, size_t bufsz);

/* The 64-bit key of a handle (as used by names_export_of). */
uint64_t names_key(const struct names *n, struct bytes fh);

/* Learn src's entries into dst (the shards of one run, pipeline.h: the same
 * seed), least recent first; a handle dst names already keeps its name,
 * unless src knows it as an export root. */
void names_merge(struct names *dst, const struct names *src);

size_t names_count(const struct names *n);
uint64_t names_evicted(const struct names *n);

#endif
