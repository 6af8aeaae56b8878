/* SPDX-License-Identifier: BSD-3-Clause */
/* findings_test.c: the findings engine on hand-made operation streams, with
 * the what-if model's answer worked out by hand (see test_whatif). */
#include "findings.h"

#include <stdlib.h>
#include <unistd.h>

#include "dissector.h"
#include "ftab.h"
#include "hashtab.h"
#include "mtab.h"
#include "stats.h"
#include "t.h"

enum { GETATTR = 1, SETATTR = 2, LOOKUP = 3, ACCESS = 4, READ = 6, WRITE = 7, COMMIT = 21,
       READDIRPLUS = 17 };

extern const struct rpc_program nfs3_program; /* its operation table: kinds and flags */
static struct flow_key key1, key2; /* clients 10.0.0.1 and 10.0.0.3 -> server 10.0.0.2 */

static const uint8_t FH_D[8] = "dir-D..", FH_F[8] = "file-F.", FH_G[8] = "file-G.";

static struct bytes
B(const uint8_t *p)
{
    struct bytes b = { p, 8 };
    return b;
}

/* An answered NFSv3 call at t_ms (reply 1 ms later), NFS3_OK. */
static struct op_event
op(uint32_t proc, unsigned t_ms, const uint8_t *fh)
{
    struct op_event ev;

    memset(&ev, 0, sizeof ev);
    ev.pg = &nfs3_program;
    ev.prog = 100003;
    ev.vers = 3;
    ev.proc = proc;
    ev.kind = nfs3_program.procs[proc].kind; /* as the matcher sets them */
    ev.opf = nfs3_program.procs[proc].flags;
    ev.t_call.tv_sec = 1000 + t_ms / 1000;
    ev.t_call.tv_nsec = (long)(t_ms % 1000) * 1000000;
    ev.t_reply = ev.t_call;
    ev.t_reply.tv_nsec += 1000000;
    ev.outcome = OP_REPLIED;
    ev.has_status = true;
    ev.stable = ev.committed = STABLE_NONE;
    ev.key = &key1;
    ev.uid = 1000;
    if (fh)
        ev.fh = B(fh);
    return ev;
}

static struct op_attr
attr(uint8_t type, uint64_t digest)
{
    struct op_attr a = { true, type, digest, 0 };
    return a;
}

static void
feed(struct findings *f, struct op_event ev)
{
    findings_record(f, &ev);
}

static struct op_event
lookup(unsigned t, const char *name, const uint8_t *child, uint64_t child_digest)
{
    struct op_event ev = op(LOOKUP, t, FH_D);

    ev.name.p = (const uint8_t *)name;
    ev.name.len = strlen(name);
    ev.attr = attr(2, 0xd1);
    if (child) {
        ev.obj_fh = B(child);
        ev.obj_attr = attr(1, child_digest);
    } else {
        ev.status = 2; /* NFS3ERR_NOENT; the reply still carries dir_attributes */
    }
    return ev;
}

static struct op_event
with_attr(struct op_event ev, uint64_t digest)
{
    ev.attr = attr(1, digest);
    return ev;
}

static struct op_event
access_ev(unsigned t, uint32_t mask)
{
    struct op_event ev = with_attr(op(ACCESS, t, FH_F), 0xf1);

    ev.access_req = mask;
    ev.access_granted = mask;
    return ev;
}

static struct op_event
read_ev(unsigned t)
{
    struct op_event ev = with_attr(op(READ, t, FH_F), 0xf1);

    ev.offset = 0;
    ev.read_bytes = 100;
    return ev;
}

/* The stream of test_whatif, as an application on one client would cause it:
 *
 *   t ms   call                       captured      what a Linux client would do
 *      0   LOOKUP D/f                 OK, F attrs   sent (no dentry yet)
 *     10   GETATTR F                  same attrs    cached (F attrs 9 ms old), but an open():
 *                                                   the READ at 30 follows -> sent under cto
 *     20   ACCESS F mask 1            granted 1     sent (first), cached
 *     30   READ F 0..100                            sent (no data cached)
 *     40   LOOKUP D/f                 OK            dentry cached, D attrs valid -> not sent
 *                                                   (lookupcache=none and noac: sent)
 *     50   GETATTR F                                cached; READ at 70 follows -> cto: sent
 *     60   ACCESS F mask 1                          access cache -> not sent (noac: sent)
 *     70   READ F 0..100                            page cache, F unchanged -> not sent
 *     80   LOOKUP D/missing           NOENT         sent (no dentry), negative dentry kept
 *     90   LOOKUP D/missing           NOENT         negative dentry -> not sent
 *                                                   (lookupcache=positive/none, noac: sent)
 *   5000   GETATTR F                                attrs 4.97 s old > acregmin 3 -> sent
 *                                                   (actimeo=60: still cached, no READ follows)
 *
 * So the captured 11 calls (LOOKUP 4, GETATTR 3, ACCESS 2, READ 2) become:
 *   defaults:             LOOKUP 2, GETATTR 3, ACCESS 1, READ 1 = 7
 *   actimeo=60:           LOOKUP 2, GETATTR 2, ACCESS 1, READ 1 = 6
 *   nocto:                LOOKUP 2, GETATTR 1, ACCESS 1, READ 1 = 5
 *   lookupcache=positive: LOOKUP 3, GETATTR 3, ACCESS 1, READ 1 = 8
 *   lookupcache=none:     LOOKUP 4, GETATTR 3, ACCESS 1, READ 1 = 9
 *   noac:                 LOOKUP 4, GETATTR 3, ACCESS 2, READ 1 = 10
 * and, with a 3 s window: GETATTRs at 10 and 50 are redundant (attributes
 * held from the LOOKUP and the READ), the one at 5000 is not; the ACCESS at
 * 60 is redundant. */
static void
whatif_stream(struct findings *f)
{
    feed(f, lookup(0, "f", FH_F, 0xf1));
    feed(f, with_attr(op(GETATTR, 10, FH_F), 0xf1));
    feed(f, access_ev(20, 1));
    feed(f, read_ev(30));
    feed(f, lookup(40, "f", FH_F, 0xf1));
    feed(f, with_attr(op(GETATTR, 50, FH_F), 0xf1));
    feed(f, access_ev(60, 1));
    feed(f, read_ev(70));
    feed(f, lookup(80, "missing", NULL, 0));
    feed(f, lookup(90, "missing", NULL, 0));
    feed(f, with_attr(op(GETATTR, 5000, FH_F), 0xf1));
}

static uint64_t
total(const struct findings *f, enum fscen sc)
{
    uint64_t t = 0;
    unsigned p;

    for (p = 0; p < OPK_FILE_COUNT; p++)
        t += findings_estimate(f, sc, p);
    return t;
}

static void
test_whatif(void)
{
    struct findings *f = findings_new(1024, 3, 42);
    static const struct {
        enum fscen sc;
        unsigned lookup, getattr, access, read;
    } want[] = {
        { SC_DEFAULTS, 2, 3, 1, 1 }, { SC_ACTIMEO60, 2, 2, 1, 1 }, { SC_NOCTO, 2, 1, 1, 1 },
        { SC_LC_POS, 3, 3, 1, 1 },   { SC_LC_NONE, 4, 3, 1, 1 },   { SC_NOAC, 4, 3, 2, 1 },
        { SC_NORDIRPLUS, 2, 3, 1, 1 },
    };
    size_t i;

    CHECK(f != NULL);
    if (!f)
        return;
    whatif_stream(f);
    EQ(f->now[LOOKUP], 4);
    EQ(f->now[GETATTR], 3);
    EQ(f->now[ACCESS], 2);
    EQ(f->now[READ], 2);
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        enum fscen sc = want[i].sc;
        EQ(findings_estimate(f, sc, LOOKUP), want[i].lookup);
        EQ(findings_estimate(f, sc, GETATTR), want[i].getattr);
        EQ(findings_estimate(f, sc, ACCESS), want[i].access);
        EQ(findings_estimate(f, sc, READ), want[i].read);
        EQ(total(f, sc), want[i].lookup + want[i].getattr + want[i].access + want[i].read);
    }
    EQ(f->cto_kept[SC_DEFAULTS], 2);
    EQ(f->cto_kept[SC_NOCTO], 0);
    EQ(f->n[FK_REDUNDANT_GETATTR], 2);
    EQ(f->n[FK_REDUNDANT_ACCESS], 1);
    EQ(f->getattr, 3);
    EQ(f->access, 2);
    findings_free(f);
}

/* A READDIRPLUS of a file's directory refreshes its attributes in the
 * scenarios with rdirplus, also when the file is not among the kept entries
 * (m_attr: the listing's time in the directory's bucket, plus_t):
 *
 *   t ms   call                       what a Linux client would do
 *      0   LOOKUP D/f -> F            sent; F's parent is D
 *   2000   READDIRPLUS D, entry g     sent; with rdirplus F's attributes are as
 *          kept, f not                fresh as the listing's reply, and D/g's dentry
 *                                     is primed
 *   3000   LOOKUP D/g -> G            primed: not sent with rdirplus and dentries
 *                                     (but with noac, whose D attributes expired)
 *   4000   GETATTR F                  F's own attributes are 4 s old: sent without
 *                                     rdirplus (and with noac); 2 s with it: cached
 *
 * The bucket is unmarked at the first LOOKUP and marked from the listing on. */
static void
test_plus_primes(void)
{
    struct findings *f = findings_new(1024, 3, 7);
    struct op_event ev;
    struct op_dirent dirent[1];
    unsigned sc;

    CHECK(f != NULL);
    if (!f)
        return;
    feed(f, lookup(0, "f", FH_F, 0xf1));
    memset(dirent, 0, sizeof dirent);
    ev = op(READDIRPLUS, 2000, FH_D);
    ev.attr = attr(2, 0xd1);
    ev.dirent = dirent;
    ev.dirent_cap = 1;
    ev.ndirent = 1;
    ev.dir_entries = 2;
    dirent[0].name.p = (const uint8_t *)"g";
    dirent[0].name.len = 1;
    dirent[0].fh = B(FH_G);
    dirent[0].attr = attr(1, 0x61);
    feed(f, ev);
    feed(f, lookup(3000, "g", FH_G, 0x61));
    feed(f, with_attr(op(GETATTR, 4000, FH_F), 0xf1));
    for (sc = 0; sc < SC__COUNT; sc++) {
        const struct fscen_params *P = &fscen_params[sc];
        bool primed = P->rdirplus && P->ac_reg_ns > 0;

        EQ(findings_estimate(f, sc, GETATTR), primed ? 0 : 1);
        EQ(findings_estimate(f, sc, LOOKUP), primed && P->dentries ? 1 : 2);
    }
    EQ(findings_estimate(f, SC_DEFAULTS, READDIRPLUS), 1);
    EQ(findings_estimate(f, SC_NORDIRPLUS, READDIRPLUS), 0);
    findings_free(f);
}

/* Redundancy needs unchanged attributes and no modifying call in between,
 * from any client. */
static void
test_redundant_getattr(void)
{
    struct findings *f = findings_new(1024, 3, 7);
    struct op_event ev;

    feed(f, with_attr(op(GETATTR, 0, FH_G), 0xa));
    feed(f, with_attr(op(GETATTR, 100, FH_G), 0xa)); /* redundant */
    feed(f, with_attr(op(GETATTR, 200, FH_G), 0xb)); /* attributes changed: not */
    ev = with_attr(op(SETATTR, 300, FH_G), 0xc);    /* another client changes it */
    ev.key = &key2;
    feed(f, ev);
    feed(f, with_attr(op(GETATTR, 400, FH_G), 0xb)); /* held 0xb, but modified since: not */
    feed(f, with_attr(op(GETATTR, 4000, FH_G), 0xc)); /* 3.6 s later: not */
    feed(f, with_attr(op(GETATTR, 4100, FH_G), 0xc)); /* redundant */
    /* pipelined: a reply that arrives after the call went out is not held */
    ev = with_attr(op(GETATTR, 4300, FH_G), 0xc);
    ev.t_reply.tv_nsec += 300000000; /* answered at 4.601 s */
    feed(f, ev);
    feed(f, with_attr(op(GETATTR, 4500, FH_G), 0xc)); /* held since 4.101 s: redundant */
    EQ(f->getattr, 8);
    EQ(f->n[FK_REDUNDANT_GETATTR], 4);
    EQ(f->clients[0].n[FK_REDUNDANT_GETATTR], 4);
    EQ(f->nfiles, 1);
    EQ(f->files[0].n[FK_REDUNDANT_GETATTR], 4);
    findings_free(f);
}

/* The handle's hash an event carries (op_event.fh_hash) is the handle's key
 * only when the findings say it is theirs (fh_hash_ours): a GETATTR
 * repeated with the same attributes is redundant whatever the event
 * carries otherwise, and with the right hash when it is. */
static void
test_event_fh_hash(void)
{
    struct findings *f = findings_new(1024, 3, 7), *g = findings_new(1024, 3, 7);
    struct op_event ev;
    unsigned i;

    CHECK(f && g);
    if (!f || !g)
        return;
    g->fh_hash_ours = true;
    for (i = 0; i < 3; i++) {
        ev = with_attr(op(GETATTR, 100 * i, FH_G), 0xa);
        ev.has_fh_hash = true;
        ev.fh_hash = 1000 + i; /* not the handle's: not ours to take */
        feed(f, ev);
        ev.fh_hash = hash_bytes(FH_G, 8, g->seed);
        feed(g, ev);
    }
    EQ(f->n[FK_REDUNDANT_GETATTR], 2);
    EQ(g->n[FK_REDUNDANT_GETATTR], 2);
    ev = with_attr(op(GETATTR, 300, FH_G), 0xa);
    ev.has_fh_hash = true;
    ev.fh_hash = 1000; /* taken: another key, no attributes held for it */
    feed(g, ev);
    EQ(g->n[FK_REDUNDANT_GETATTR], 2);
    findings_free(f);
    findings_free(g);
}

static struct op_event
write_ev(unsigned t, uint8_t stable, uint32_t count, char verf)
{
    struct op_event ev = with_attr(op(WRITE, t, FH_F), 0xf0 + t);

    ev.stable = stable;
    ev.committed = STABLE_FILE_SYNC;
    ev.write_bytes = count;
    ev.has_verf = true;
    memset(ev.verf, verf, 8);
    return ev;
}

static void
test_stable_writes(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    struct op_event c;

    feed(f, write_ev(0, STABLE_UNSTABLE, 65536, 'a'));
    feed(f, write_ev(10, STABLE_FILE_SYNC, 4096, 'a')); /* below 65536: small */
    feed(f, write_ev(20, STABLE_FILE_SYNC, 4096, 'a'));
    feed(f, write_ev(30, STABLE_DATA_SYNC, 4096, 'b')); /* verifier changed */
    feed(f, write_ev(40, STABLE_DATA_SYNC, 65536, 'b'));
    c = op(COMMIT, 50, FH_F);
    c.has_verf = true;
    memset(c.verf, 'b', 8);
    feed(f, c);
    EQ(f->writes, 5);
    EQ(f->stable[STABLE_FILE_SYNC], 2);
    EQ(f->stable[STABLE_DATA_SYNC], 2);
    EQ(f->n[FK_STABLE_WRITES], 4);
    EQ(f->small_stable, 3);
    EQ(f->stable_bytes, 3 * 4096 + 65536);
    EQ(f->stable_size[iosz_bucket(4096)], 3);
    EQ(f->lat_stable.count, 4);
    EQ(f->lat_unstable.count, 1);
    EQ(f->commits, 1);
    EQ(f->lat_commit.count, 1);
    EQ(f->verf_changes, 1);
    EQ(f->files[0].stable[STABLE_FILE_SYNC], 2);
    EQ(f->cost_us[FK_STABLE_WRITES], 4 * 1000);
    findings_free(f);
}

/* NFSv4 handles run to 128 bytes (RFC 8881 §3.2): a file known by one is
 * kept whole in the top files, apart from a file whose handle differs only
 * in its last byte. */
static void
test_long_handles(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    uint8_t h1[128], h2[128];
    struct op_event ev;

    memset(h1, 0x5a, sizeof h1);
    memcpy(h2, h1, sizeof h2);
    h2[127] ^= 1;
    for (unsigned i = 0; i < 3; i++) {
        ev = write_ev(i * 10, STABLE_FILE_SYNC, 4096, 'a');
        ev.fh.p = i < 2 ? h1 : h2;
        ev.fh.len = 128;
        feed(f, ev);
    }
    EQ(f->n[FK_STABLE_WRITES], 3);
    EQ(f->files[0].fh_len, 128);
    CHECK(memcmp(f->files[0].fh, h1, 128) == 0 || memcmp(f->files[0].fh, h2, 128) == 0);
    EQ(f->files[0].stable[STABLE_FILE_SYNC] + f->files[1].stable[STABLE_FILE_SYNC], 3);
    CHECK(f->files[0].stable[STABLE_FILE_SYNC] != f->files[1].stable[STABLE_FILE_SYNC]);
    findings_free(f);
}

static void
test_access(void)
{
    struct findings *f = findings_new(1024, 3, 11);
    struct op_event ev;

    feed(f, access_ev(0, 0x1f));
    feed(f, access_ev(10, 0x1f)); /* redundant */
    feed(f, access_ev(20, 0x01)); /* another mask: not */
    ev = access_ev(30, 0x1f);
    ev.uid = 0; /* another user: not */
    feed(f, ev);
    feed(f, with_attr(op(SETATTR, 40, FH_F), 0xf2));
    feed(f, access_ev(50, 0x1f)); /* SETATTR in between: not */
    feed(f, access_ev(60, 0x1f)); /* redundant */
    EQ(f->access, 6);
    EQ(f->n[FK_REDUNDANT_ACCESS], 2);
    findings_free(f);
}

/* A modifying call already in flight when a GETATTR or ACCESS was sent, whose
 * reply comes after that call's: the file may have changed under it, so the
 * call is not redundant after all (calls are seen at their reply). */
static struct op_event
slow(struct op_event ev, unsigned reply_ms)
{
    ev.t_reply = ev.t_call;
    ev.t_reply.tv_nsec += (long)reply_ms * 1000000;
    ev.key = &key2; /* from another client: it counts too */
    return ev;
}

static void
test_in_flight(void)
{
    struct findings *f = findings_new(1024, 3, 13);

    feed(f, access_ev(0, 0x1f));
    feed(f, access_ev(100, 0x1f)); /* looks redundant ... */
    EQ(f->n[FK_REDUNDANT_ACCESS], 1);
    feed(f, slow(with_attr(op(SETATTR, 50, FH_F), 0xf2), 100)); /* ... a SETATTR 50..150 */
    EQ(f->n[FK_REDUNDANT_ACCESS], 0);
    EQ(f->clients[0].n[FK_REDUNDANT_ACCESS], 0);
    EQ(f->cost_us[FK_REDUNDANT_ACCESS], 0);
    feed(f, access_ev(200, 0x1f)); /* SETATTR answered since the last ACCESS: not */
    feed(f, access_ev(300, 0x1f)); /* redundant */
    feed(f, slow(with_attr(op(SETATTR, 350, FH_F), 0xf3), 10)); /* sent after it: stays */
    EQ(f->n[FK_REDUNDANT_ACCESS], 1);
    EQ(f->cost_us[FK_REDUNDANT_ACCESS], 1000);

    feed(f, with_attr(op(GETATTR, 1000, FH_G), 0xa));
    feed(f, with_attr(op(GETATTR, 1100, FH_G), 0xa)); /* looks redundant ... */
    EQ(f->n[FK_REDUNDANT_GETATTR], 1);
    feed(f, slow(with_attr(op(WRITE, 1050, FH_G), 0xa), 200)); /* ... a WRITE 1050..1250 */
    EQ(f->n[FK_REDUNDANT_GETATTR], 0);
    EQ(f->cost_us[FK_REDUNDANT_GETATTR], 0);
    findings_free(f);
}

/* A READDIRPLUS listing, then LOOKUP + GETATTR of 20 entries: one fan-out. */
static void
test_fanout(void)
{
    struct findings *f = findings_new(1024, 3, 13);
    uint8_t fh[20][8];
    char name[20][8];
    struct op_event ev = op(READDIRPLUS, 0, FH_D);
    struct op_dirent dirent[1];
    unsigned i;

    memset(dirent, 0, sizeof dirent);
    ev.dirent = dirent;
    ev.dirent_cap = 1;
    ev.attr = attr(2, 0xd1);
    ev.ndirent = 1;
    ev.dir_entries = 1;
    ev.dirent[0].name.p = (const uint8_t *)"e0";
    ev.dirent[0].name.len = 2;
    memcpy(fh[0], "ent-00.", 8);
    ev.dirent[0].fh = B(fh[0]);
    ev.dirent[0].attr = attr(1, 0x100);
    feed(f, ev);
    for (i = 0; i < 20; i++) {
        snprintf(name[i], sizeof name[i], "e%u", i);
        snprintf((char *)fh[i], 8, "ent-%02u", i);
        feed(f, lookup(10 + 2 * i, name[i], fh[i], 0x100 + i));
    }
    for (i = 0; i < 20; i++)
        feed(f, with_attr(op(GETATTR, 100 + i, fh[i]), 0x100 + i));
    EQ(f->ndirs, 1);
    EQ(f->dirs[0].listings, 1);
    EQ(f->dirs[0].readdirplus, 1);
    EQ(f->dirs[0].lookup, 20);
    EQ(f->dirs[0].getattr, 20);
    EQ(f->dirs[0].getattr_after_plus, 20);
    EQ(f->dirs[0].getattr_redundant, 20); /* held from the LOOKUPs */
    EQ(f->dirs[0].l[0].entries_seen, 1);
    CHECK(findings_dir_reported(&f->dirs[0]));
    { /* 41 calls of 1 ms: the 20 redundant GETATTRs are redundant_getattr's time,
       * the listing and the 20 LOOKUPs the fan-out's; nothing counted twice */
        uint64_t sp[FC__COUNT + 1];

        EQ(f->total_us, 41000);
        EQ(f->cost_us[FK_REDUNDANT_GETATTR], 20000);
        EQ(f->dirs[0].cost_us, 21000);
        findings_time_split(f, sp);
        EQ(sp[FC_CLIENT], 41000);
        EQ(sp[FC_NETWORK], 0);
        EQ(sp[FC__COUNT], 0);
    }
    /* a second listing 10 s later starts a new episode */
    ev = op(READDIRPLUS, 10000, FH_D);
    feed(f, ev);
    EQ(f->dirs[0].listings, 2);
    EQ(f->dirs[0].nl, 2);
    findings_free(f);
}

/* A call delayed by TCP recovery is network_loss's time only; lookups of
 * missing names (NOENT) are counted per (directory, name), a LOOKUP refused
 * for another reason not at all; same-XID resends are rpc_retransmissions. */
static void
test_network_and_lookups(void)
{
    struct findings *f = findings_new(1024, 3, 7);
    struct op_event ev;

    feed(f, with_attr(op(GETATTR, 0, FH_G), 0xa));
    ev = with_attr(op(GETATTR, 100, FH_G), 0xa); /* redundant, but it waited 200 ms on TCP */
    ev.t_reply.tv_nsec += 199000000;
    ev.net_delay = true;
    feed(f, ev);
    feed(f, with_attr(op(GETATTR, 400, FH_G), 0xa)); /* redundant: 1 ms */
    EQ(f->n[FK_REDUNDANT_GETATTR], 2);
    EQ(f->cost_us[FK_REDUNDANT_GETATTR], 1000); /* not the 200 ms the network took */
    EQ(f->n[FK_NETWORK_LOSS], 1);
    EQ(f->cost_us[FK_NETWORK_LOSS], 200000);
    EQ(f->lat_net.count, 1);
    EQ(f->lat_clean.count, 2);
    EQ(f->total_us, 202000);

    feed(f, lookup(1000, ".htaccess", NULL, 0));
    feed(f, lookup(1100, "missing.html", NULL, 0));
    feed(f, lookup(1200, ".htaccess", NULL, 0));
    feed(f, lookup(1300, "index.php", FH_F, 0x11));
    ev = lookup(1400, ".htaccess", NULL, 0);
    ev.status = 13; /* NFS3ERR_ACCES: the name may exist; no negative lookup */
    feed(f, ev);
    EQ(f->lookups, 5);
    EQ(f->n[FK_NEGATIVE_LOOKUPS], 3);
    EQ(f->nneg, 2);
    EQ(f->neg[0].n, 2);
    EQ(f->neg[0].name_len, 9);
    CHECK(memcmp(f->neg[0].name, ".htaccess", 9) == 0);
    EQ(f->neg[0].status, 2);
    EQ(f->neg[1].n, 1);
    EQ(f->neg[1].status, 2);
    EQ(f->cost_us[FK_NEGATIVE_LOOKUPS], 3000);

    ev = op(GETATTR, 2000, FH_F);
    ev.retrans = 2;
    feed(f, ev);
    EQ(f->n[FK_RPC_RETRANS], 1);
    EQ(f->rpc_resent, 2);
    EQ(f->cost_us[FK_RPC_RETRANS], 1000);
    { /* network: the 200 ms wait and the resent call; client: the redundant
       * GETATTR and the 3 NOENT LOOKUPs; unexplained: the first GETATTR, the
       * LOOKUP of index.php and the one refused with ACCES */
        uint64_t sp[FC__COUNT + 1];

        findings_time_split(f, sp);
        EQ(f->total_us, 208000);
        EQ(sp[FC_NETWORK], 201000);
        EQ(sp[FC_SERVER], 0);
        EQ(sp[FC_CLIENT], 4000);
        EQ(sp[FC__COUNT], 3000);
    }
    findings_free(f);
}

/* The tables' placement: a key's home must be any slot, even or odd. The
 * keys are splitmix64 outputs, like the findings' hashes; 64 of them in 1,024
 * rows mostly sit at their home (6 % load), so about half (binomially 32,
 * fewer than 16 with odds of 3e-5) must sit at even slots. A home taken from
 * the low bits of the stored key, whose low bit marks a used slot, would put
 * them all at odd slots but the few pushed one further by a collision. */
static void
test_table_slots(void)
{
    uint64_t evicted = 0;
    struct ftab *t = ftab_new(1024, sizeof(uint64_t), &evicted);
    unsigned i, even = 0;

    CHECK(t != NULL);
    if (!t)
        return;
    EQ(t->mask, 1023);
    for (i = 1; i <= 64; i++)
        *(uint64_t *)ftab_put(t, hash_mix(i), i, NULL) = i;
    for (i = 1; i <= 64; i++) {
        struct fslot *s = ftab_find(t, hash_mix(i));
        size_t j;

        CHECK(s != NULL);
        if (!s)
            continue;
        EQ(*(uint64_t *)val_of(t, s), i);
        j = (size_t)((uint8_t *)s - (uint8_t *)slot_at(t, 0)) / t->row;
        even += j % 2 == 0;
    }
    EQ(evicted, 0);
    CHECK(even >= 16);
    CHECK(even <= 48);
    ftab_free(t);
}

/* A new value is all zero, also where an evicted one was (a value of a
 * cache line, 64 bytes, is cleared inline, others by their size). */
static void
test_fresh_values(void)
{
    static const size_t sizes[] = { 64, 24, 128 };
    unsigned z, i, nonzero = 0, fresh_n = 0;
    uint64_t evicted = 0;

    for (z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        struct ftab *t = ftab_new(16, sizes[z], &evicted);

        CHECK(t != NULL);
        if (!t)
            continue;
        for (i = 1; i <= 200; i++) {
            bool fresh;
            uint8_t *v = ftab_put(t, hash_mix(i), i, &fresh);
            size_t j;

            fresh_n += fresh;
            for (j = 0; j < sizes[z]; j++)
                nonzero += v[j] != 0;
            memset(v, 0xff, sizes[z]);
        }
        ftab_free(t);
    }
    EQ(fresh_n, 600);
    EQ(nonzero, 0);
    CHECK(evicted > 3 * 150);
}

/* Groups allocated together (ftab_groups_new): each laid out as alone, one
 * after another from the first's memory, which the first group's first
 * table owns (on huge pages at a 2 MiB boundary from 2 MiB on, where the
 * kernel has them); their tables keep their own values. */
static void
test_packed_groups(void)
{
    static const size_t va[2] = { 8, 88 }, vb = 24, vc = 8;
    struct ftab *a[2], *b, *c, *all[4];
    const struct ftab_group g[3] = { { a, 2, 16384, va }, { &b, 1, 1000, &vb },
                                     { &c, 1, 16, &vc } };
    const struct ftab_group none[2] = { { &b, 1, 16, &vb }, { &c, 0, 16, &vc } };
    uint64_t evicted = 0;
    unsigned i, k, bad = 0;

    CHECK(ftab_groups_new(g, 3, &evicted));
    if (!a[0] || !a[1] || !b || !c)
        return;
    EQ(a[0]->row, 128);
    EQ(b->row, 64);
    EQ(c->row, 32);
    EQ(b->mask, 1023);
    EQ(c->mask, 15);
    EQ((uintptr_t)a[0]->base % 64, 0);
    EQ(a[1]->base, a[0]->base + sizeof(struct fslot));
    EQ(b->base, a[0]->base + 16384 * 128);
    EQ(c->base, b->base + 1024 * 64);
    CHECK(a[0]->mem.p == a[0]->base);
    CHECK(a[1]->mem.p == NULL && b->mem.p == NULL && c->mem.p == NULL);
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0) {
        size_t ps = (size_t)sysconf(_SC_PAGESIZE), sz = 16384 * 128 + 1024 * 64 + 16 * 32;

        EQ(a[0]->mem.len, (sz + ps - 1) / ps * ps);
        EQ((uintptr_t)a[0]->base % HUGEMEM_PAGE, 0);
    }
    all[0] = a[0];
    all[1] = a[1];
    all[2] = b;
    all[3] = c;
    for (k = 0; k < 4; k++) {
        for (i = 1; i <= 12; i++) {
            uint8_t *v = ftab_put(all[k], hash_mix(k * 1000 + i), i, NULL);
            memset(v, (int)(k * 16 + i), all[k]->vsize);
        }
    }
    for (k = 0; k < 4; k++) {
        for (i = 1; i <= 12; i++) {
            const uint8_t *v = ftab_get(all[k], hash_mix(k * 1000 + i));
            size_t j;

            if (!v) {
                bad++;
                continue;
            }
            for (j = 0; j < all[k]->vsize; j++)
                bad += v[j] != (uint8_t)(k * 16 + i);
        }
    }
    EQ(bad, 0);
    EQ(evicted, 0);
    for (k = 0; k < 4; k++) /* the owner first */
        ftab_free(all[k]);
    /* a group of no tables: none at all */
    b = c = (struct ftab *)1;
    CHECK(!ftab_groups_new(none, 2, &evicted));
    CHECK(b == NULL && c == (struct ftab *)1);
}

/* findings_prepare loads FND_*_LINES lines of a row: the rows' sizes. */
static void
test_row_lines(void)
{
    struct findings *f = findings_new(0, 0, 1);

    CHECK(f != NULL);
    if (!f)
        return;
    EQ(mtab_lines(), FND_MODEL_LINES);
    EQ(ftab_lines(f->parent), FND_PM_LINES);
    EQ(ftab_lines(f->attr), FND_ATTR_LINES);
    findings_free(f);
}

int
main(void)
{
    key1.af = key2.af = 4;
    memcpy(key1.saddr, "\x0a\x00\x00\x01", 4);
    memcpy(key2.saddr, "\x0a\x00\x00\x03", 4);
    memcpy(key1.daddr, "\x0a\x00\x00\x02", 4);
    memcpy(key2.daddr, "\x0a\x00\x00\x02", 4);
    test_whatif();
    test_redundant_getattr();
    test_stable_writes();
    test_long_handles();
    test_access();
    test_in_flight();
    test_fanout();
    test_plus_primes();
    test_network_and_lookups();
    test_table_slots();
    test_row_lines();
    test_fresh_values();
    test_packed_groups();
    test_event_fh_hash();
    return t_done();
}
