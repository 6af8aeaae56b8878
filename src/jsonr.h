/* SPDX-License-Identifier: BSD-3-Clause */
/* jsonr.h: a small bounded JSON reader (RFC 8259), no library.
 *
 * Parses a whole document held in memory into a flat array of nodes (one per
 * value; object members carry their key). Bounded: at most `max_nodes` nodes
 * and JSONR_MAX_DEPTH levels; strings and numbers are views into the input,
 * checked against the grammar of RFC 8259 (§6 numbers, §7 strings) and
 * unescaped when read (jsonr_str, jsonr_unescape; member names compare by
 * value). Used by `nfsscope diff` and `nfsscope merge` to read saved
 * reports. */
#ifndef NFSSCOPE_JSONR_H
#define NFSSCOPE_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSONR_MAX_DEPTH 64
#define JSONR_NONE UINT32_MAX

enum jsonr_type { JR_NULL, JR_BOOL, JR_NUM, JR_STR, JR_ARR, JR_OBJ };

struct jsonr_node {
    uint8_t type;
    bool bval;
    uint32_t key_off, key_len; /* member name (raw, without quotes); len 0 in arrays */
    uint32_t off, len;         /* JR_STR: raw contents; JR_NUM: the number's text */
    uint32_t first, next;      /* first child, next sibling (JSONR_NONE) */
};

struct jsonr {
    const char *text;
    size_t len;
    struct jsonr_node *n;
    uint32_t count, cap;
    char err[128];
};

/* Parse text[0..len). 0, or -1 with j->err set (syntax error, too deep, too
 * many nodes, out of memory). The text must outlive j. Root is node 0. */
int jsonr_parse(struct jsonr *j, const char *text, size_t len, uint32_t max_nodes);
void jsonr_free(struct jsonr *j);

/* The member `key` of object node `obj`, or JSONR_NONE. */
uint32_t jsonr_get(const struct jsonr *j, uint32_t obj, const char *key);
/* A path of member names separated by '.', e.g. "nfs3.ops.getattr.calls". */
uint32_t jsonr_path(const struct jsonr *j, uint32_t from, const char *path);
/* A number node as double / uint64 (def when absent, null or not a number). */
double jsonr_num(const struct jsonr *j, uint32_t node, double def);
/* A string node's value, unescaped, into buf (NUL-terminated, cut between
 * characters); false if not a string. */
bool jsonr_str(const struct jsonr *j, uint32_t node, char *buf, size_t bufsz);
/* Unescape the raw contents of a string (RFC 8259 §7) into dst, at most
 * `cap` bytes with the NUL: \uXXXX and surrogate pairs become UTF-8, a lone
 * surrogate U+FFFD; \u0000 becomes a NUL byte inside the result. Never
 * longer than the input (n + 1 bytes always suffice). Stops before a
 * character that would not fit. Returns the length. */
size_t jsonr_unescape(const char *raw, size_t n, char *dst, size_t cap);

#endif
