/* SPDX-License-Identifier: BSD-3-Clause */
/* names.c: file handle -> (parent, name) cache; see names.h. */
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"

#define NAME_MAX_LEN 255
#define NAME_INLINE 37 /* names this long or shorter sit in the entry (64 bytes) */
#define MAX_DEPTH 64   /* longest parent chain walked (loops in hostile data end here) */

/* Most names are short: the entry holds them, and a longer one goes to the
 * slot's row of `long_names`, whose pages stay untouched until a long name
 * is learned there (about 4 MB for 65,536 short names instead of 18 MB). */
struct entry {
    uint64_t key;      /* hash of the handle; 0 = free */
    uint64_t parent;   /* hash of the parent handle, 0 for an export root */
    uint32_t prev, next; /* recency list (slot ids) */
    uint8_t is_export;
    uint8_t indexed;   /* (parent, name) is in the dir index */
    uint8_t name_len;
    uint8_t name[NAME_INLINE]; /* when name_len <= NAME_INLINE */
};

struct names {
    struct entry *slab;
    uint8_t (*long_names)[NAME_MAX_LEN]; /* row s: slot s's name when longer than NAME_INLINE */
    size_t cap, count;
    uint32_t head, tail, free_head; /* head: most recent */
    size_t fresh;                   /* slots [fresh, cap) have never been used */
    struct hashtab idx;  /* handle key -> slot */
    struct hashtab didx; /* (parent key, name) -> slot, for RENAME and REMOVE */
    uint64_t seed, evicted;
    /* For names_export_of_memo: entries that left, became export roots or
     * moved to another parent (any chain may change), and entries given a
     * parent where they had none (only a chain that stopped short may go
     * further; a new entry, with neither, ends a chain as its absence did);
     * both start at 1, so a zeroed memo never holds. */
    uint64_t changed, extended;
};

struct names *
names_new(size_t cap, uint64_t seed)
{
    struct names *n = calloc(1, sizeof *n);

    if (!n || cap == 0 || cap >= HT_NONE)
        goto fail;
    n->slab = calloc(cap, sizeof *n->slab);
    n->long_names = calloc(cap, sizeof *n->long_names);
    if (!n->slab || !n->long_names || hashtab_init(&n->idx, cap) != 0)
        goto fail;
    if (hashtab_init(&n->didx, cap) != 0) {
        hashtab_fini(&n->idx);
        goto fail;
    }
    n->cap = cap;
    n->seed = seed;
    n->free_head = HT_NONE;
    n->fresh = 0;
    n->head = n->tail = HT_NONE;
    n->changed = n->extended = 1;
    return n;
fail:
    if (n) {
        free(n->slab);
        free(n->long_names);
    }
    free(n);
    return NULL;
}

void
names_free(struct names *n)
{
    if (!n)
        return;
    hashtab_fini(&n->idx);
    hashtab_fini(&n->didx);
    free(n->slab);
    free(n->long_names);
    free(n);
}

uint64_t
names_key(const struct names *n, struct bytes fh)
{
    uint64_t k = hash_bytes(fh.p, fh.len, n->seed);
    return k ? k : 1; /* 0 means "none" */
}

/* Slot s's name (name_len bytes). */
static const uint8_t *
ename(const struct names *n, uint32_t s)
{
    return n->slab[s].name_len <= NAME_INLINE ? n->slab[s].name : n->long_names[s];
}

static uint32_t
find(const struct names *n, uint64_t key)
{
    uint32_t pos, s;

    for (s = hashtab_first(&n->idx, key, &pos); s != HT_NONE; s = hashtab_next(&n->idx, key, &pos))
        if (n->slab[s].key == key)
            return s;
    return HT_NONE;
}

/* The dir index: at most one entry per (parent, name), the one that name
 * currently leads to. Names longer than NAME_MAX_LEN are stored cut, and
 * looked up cut the same way. */
static uint64_t
dname_hash(const struct names *n, uint64_t parent, const uint8_t *name, size_t len)
{
    if (len > NAME_MAX_LEN)
        len = NAME_MAX_LEN;
    return hash_u64x2(parent, hash_bytes(name, len, n->seed), n->seed);
}

static uint32_t
find_dname(const struct names *n, uint64_t parent, struct bytes name)
{
    size_t len = name.len < NAME_MAX_LEN ? name.len : NAME_MAX_LEN;
    uint64_t h = dname_hash(n, parent, name.p, len);
    uint32_t pos, s;

    for (s = hashtab_first(&n->didx, h, &pos); s != HT_NONE; s = hashtab_next(&n->didx, h, &pos)) {
        const struct entry *e = &n->slab[s];
        if (e->indexed && e->parent == parent && e->name_len == len &&
            memcmp(ename(n, s), name.p, len) == 0)
            return s;
    }
    return HT_NONE;
}

/* The entry stays (with its last name, for labels) but that name no longer
 * leads to it. */
static void
unindex(struct names *n, uint32_t s)
{
    struct entry *e = &n->slab[s];

    if (!e->indexed)
        return;
    hashtab_remove(&n->didx, dname_hash(n, e->parent, ename(n, s), e->name_len), s);
    e->indexed = 0;
}

/* Index slot s under its (parent, name); an entry that held that name
 * before names an object the name no longer leads to (removed, renamed
 * over, or replaced behind our back): it is unindexed. */
static void
index_slot(struct names *n, uint32_t s)
{
    struct entry *e = &n->slab[s];
    struct bytes name = { ename(n, s), e->name_len };
    uint32_t old;

    if (e->indexed || e->is_export || !e->parent || !e->name_len)
        return;
    old = find_dname(n, e->parent, name);
    if (old != HT_NONE)
        unindex(n, old);
    hashtab_insert(&n->didx, dname_hash(n, e->parent, name.p, e->name_len), s);
    e->indexed = 1;
}

static void
unlink_slot(struct names *n, uint32_t s)
{
    struct entry *e = &n->slab[s];

    if (e->prev != HT_NONE)
        n->slab[e->prev].next = e->next;
    else
        n->head = e->next;
    if (e->next != HT_NONE)
        n->slab[e->next].prev = e->prev;
    else
        n->tail = e->prev;
}

static void
push_head(struct names *n, uint32_t s)
{
    struct entry *e = &n->slab[s];

    e->prev = HT_NONE;
    e->next = n->head;
    if (n->head != HT_NONE)
        n->slab[n->head].prev = s;
    n->head = s;
    if (n->tail == HT_NONE)
        n->tail = s;
}

/* The entry for `key`, made most recent; created (evicting the least recent
 * when full) if absent. */
static struct entry *
upsert(struct names *n, uint64_t key)
{
    uint32_t s = find(n, key);

    if (s == HT_NONE) {
        if (n->free_head == HT_NONE && n->fresh < n->cap) {
            n->slab[n->fresh].next = HT_NONE;
            n->free_head = (uint32_t)n->fresh++;
        }
        if (n->free_head == HT_NONE) {
            uint32_t victim = n->tail;
            unindex(n, victim); /* both indexes drop it together */
            unlink_slot(n, victim);
            hashtab_remove(&n->idx, n->slab[victim].key, victim);
            n->slab[victim].next = n->free_head;
            n->free_head = victim;
            n->count--;
            n->evicted++;
            n->changed++;
        }
        s = n->free_head;
        n->free_head = n->slab[s].next;
        memset(&n->slab[s], 0, sizeof n->slab[s]);
        n->slab[s].key = key;
        hashtab_insert(&n->idx, key, s);
        n->count++;
    } else {
        unlink_slot(n, s);
    }
    push_head(n, s);
    return &n->slab[s];
}

static void
set_name(struct names *n, uint32_t s, struct bytes name)
{
    size_t len = name.len < NAME_MAX_LEN ? name.len : NAME_MAX_LEN;
    struct entry *e = &n->slab[s];

    memcpy(len <= NAME_INLINE ? e->name : n->long_names[s], name.p, len);
    e->name_len = (uint8_t)len;
}

void
names_learn(struct names *n, struct bytes parent, struct bytes name, struct bytes child)
{
    if (n && parent.len)
        names_learn_under(n, names_key(n, parent), name, child);
}

void
names_learn_under(struct names *n, uint64_t pk, struct bytes name, struct bytes child)
{
    struct entry *e;
    uint64_t ck;
    uint32_t s;

    if (!n || !child.len || !name.len)
        return;
    /* "." and ".." name the directory itself or its parent, not a child. */
    if ((name.len == 1 && name.p[0] == '.') ||
        (name.len == 2 && name.p[0] == '.' && name.p[1] == '.'))
        return;
    ck = names_key(n, child);
    if (ck == pk)
        return;
    e = upsert(n, ck);
    s = (uint32_t)(e - n->slab);
    if (e->is_export)
        return; /* an export root keeps its path */
    if (e->indexed && e->parent == pk && e->name_len == name.len &&
        memcmp(ename(n, s), name.p, name.len) == 0)
        return; /* known already */
    /* One name per handle: the latest one learned. */
    unindex(n, s);
    if (e->parent != pk) {
        if (e->parent)
            n->changed++;
        else
            n->extended++;
    }
    e->parent = pk;
    set_name(n, s, name);
    index_slot(n, s);
}

bool
names_rename(struct names *n, struct bytes from_dir, struct bytes from_name, struct bytes to_dir,
             struct bytes to_name)
{
    uint64_t fk, tk;
    uint32_t s, t;
    struct entry *e;

    if (!n || !from_dir.len || !from_name.len || !to_dir.len || !to_name.len)
        return false;
    fk = names_key(n, from_dir);
    tk = names_key(n, to_dir);
    s = find_dname(n, fk, from_name);
    /* RFC 1813 §3.3.14: an object that to.name named is replaced (unlinked). */
    t = find_dname(n, tk, to_name);
    if (t != HT_NONE && t != s)
        unindex(n, t);
    if (s == HT_NONE)
        return false; /* the moved object's handle was never learned */
    e = &n->slab[s];
    if (e->key == tk)
        return false; /* into itself: impossible (hostile); no self-parent */
    unindex(n, s);
    n->changed++;
    e->parent = tk;
    set_name(n, s, to_name);
    index_slot(n, s);
    unlink_slot(n, s); /* most recently learned */
    push_head(n, s);
    return true;
}

void
names_unlink(struct names *n, struct bytes dir, struct bytes name)
{
    uint32_t s;

    if (!n || !dir.len || !name.len)
        return;
    s = find_dname(n, names_key(n, dir), name);
    if (s != HT_NONE)
        unindex(n, s);
}

void
names_learn_export(struct names *n, struct bytes path, struct bytes root)
{
    struct entry *e;

    if (!n || !root.len || !path.len)
        return;
    e = upsert(n, names_key(n, root));
    unindex(n, (uint32_t)(e - n->slab)); /* a root is found by handle only */
    n->changed++;
    e->parent = 0;
    e->is_export = 1;
    set_name(n, (uint32_t)(e - n->slab), path);
}

/* Walk up from `key`: the slots of the chain, leaf first. */
static size_t
chain(const struct names *n, uint64_t key, uint32_t *slots, bool *complete)
{
    size_t depth = 0;

    *complete = false;
    while (depth < MAX_DEPTH) {
        uint32_t s = find(n, key);
        if (s == HT_NONE)
            break;
        slots[depth++] = s;
        if (n->slab[s].is_export) {
            *complete = true;
            break;
        }
        key = n->slab[s].parent;
        if (!key)
            break;
    }
    return depth;
}

static void
append(char *buf, size_t bufsz, size_t *len, const void *p, size_t plen)
{
    if (*len + 1 >= bufsz)
        return;
    if (plen > bufsz - 1 - *len)
        plen = bufsz - 1 - *len;
    memcpy(buf + *len, p, plen);
    *len += plen;
    buf[*len] = '\0';
}

/* A name from the wire: its bytes, but a NUL (which would end the C string
 * there) as C0 80, and only whole: a NUL is not cut in two. */
static void
append_name(char *buf, size_t bufsz, size_t *len, const uint8_t *name, size_t nlen)
{
    while (nlen) {
        const uint8_t *nul = memchr(name, '\0', nlen);
        size_t run = nul ? (size_t)(nul - name) : nlen;

        append(buf, bufsz, len, name, run);
        if (!nul || *len + 3 > bufsz)
            return;
        append(buf, bufsz, len, "\xc0\x80", 2);
        name += run + 1;
        nlen -= run + 1;
    }
}

bool
names_path(const struct names *n, struct bytes fh, char *buf, size_t bufsz)
{
    uint32_t slots[MAX_DEPTH];
    bool complete;
    size_t depth, len = 0, i;

    if (!bufsz)
        return false;
    buf[0] = '\0';
    depth = n && fh.len ? chain(n, names_key(n, fh), slots, &complete) : 0;
    if (depth == 0) {
        for (i = 0; i < fh.len && 2 * i + 2 < bufsz; i++)
            snprintf(buf + 2 * i, 3, "%02x", fh.p[i]);
        return false;
    }
    if (!complete)
        append(buf, bufsz, &len, "...", 3);
    for (i = depth; i-- > 0;) {
        const struct entry *e = &n->slab[slots[i]];
        const uint8_t *name = ename(n, slots[i]);
        /* a separator, but none after an export that ends in one (NFSv4's root "/") */
        if ((!e->is_export || e->name_len == 0 || name[0] != '/') &&
            !(len && buf[len - 1] == '/'))
            append(buf, bufsz, &len, "/", 1);
        append_name(buf, bufsz, &len, name, e->name_len);
    }
    return true;
}

uint64_t
names_export_of(const struct names *n, struct bytes fh)
{
    uint32_t slots[MAX_DEPTH];
    bool complete;
    size_t depth;

    if (!n || !fh.len)
        return 0;
    depth = chain(n, names_key(n, fh), slots, &complete);
    return complete ? n->slab[slots[depth - 1]].key : 0;
}

uint64_t
names_export_of_memo(const struct names *n, struct bytes fh, struct names_export_memo *m)
{
    if (!n)
        return 0;
    if (m->changed != n->changed || (!m->export_key && m->extended != n->extended)) {
        m->export_key = names_export_of(n, fh);
        m->changed = n->changed;
        m->extended = n->extended;
    }
    return m->export_key;
}

bool
names_export_path(const struct names *n, uint64_t export_key, char *buf, size_t bufsz)
{
    uint32_t s = n && export_key ? find(n, export_key) : HT_NONE;
    size_t len = 0;

    if (!bufsz)
        return false;
    buf[0] = '\0';
    if (s == HT_NONE || !n->slab[s].is_export)
        return false;
    append_name(buf, bufsz, &len, ename(n, s), n->slab[s].name_len);
    return true;
}

size_t
names_count(const struct names *n)
{
    return n ? n->count : 0;
}

uint64_t
names_evicted(const struct names *n)
{
    return n ? n->evicted : 0;
}

void
names_merge(struct names *dst, const struct names *src)
{
    uint32_t s;

    if (!dst || !src)
        return;
    dst->evicted += src->evicted;
    dst->changed++; /* entries change parent below: no remembered export holds */
    for (s = src->tail; s != HT_NONE; s = src->slab[s].prev) { /* least recent first */
        const struct entry *from = &src->slab[s];
        struct bytes name = { ename(src, s), from->name_len };
        struct entry *e;
        uint32_t d = find(dst, from->key);

        if (d != HT_NONE && (dst->slab[d].is_export || !from->is_export))
            continue; /* dst's name stands; an export root's path wins */
        e = upsert(dst, from->key);
        d = (uint32_t)(e - dst->slab);
        unindex(dst, d);
        e->parent = from->parent;
        e->is_export = from->is_export;
        set_name(dst, d, name);
        if (from->indexed)
            index_slot(dst, d);
    }
}
