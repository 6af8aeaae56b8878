/* SPDX-License-Identifier: BSD-3-Clause */
/* privdrop: give up what a live capture no longer needs once it is open
 * (tcpdump -Z), and keep no capability at all afterwards. */
#ifndef NFSSCOPE_PRIVDROP_H
#define NFSSCOPE_PRIVDROP_H

#include <stdbool.h>
#include <stddef.h>

/* Called once the capture is open, before any output file is opened.
 * `user` NULL means the default: "nobody" for a live capture started as root.
 * A user whose uid is 0 ("-Z root") keeps every privilege. Otherwise, after
 * this returns 0:
 *   - started as root: running as `user` (uid, gid, its groups), the
 *     capability bounding set emptied before the switch;
 *   - started as another user (e.g. a binary given CAP_NET_RAW with setcap):
 *     same user, live captures give up every capability;
 *   - in both: no effective, permitted, inheritable or ambient capability
 *     left (checked with capget), and no_new_privs set, so no exec can
 *     regain any.
 * Naming another user when not root is an error. Returns 0; 1 with `err` set
 * when the switch failed (never continues half-switched); 2 for an unknown
 * user. */
int privdrop_after_open(bool live, const char *user, char *err, size_t errlen);

#endif
