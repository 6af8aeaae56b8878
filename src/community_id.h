/* SPDX-License-Identifier: BSD-3-Clause */
/* community_id.h: the Community ID v1 flow hash (github.com/corelight/
 * community-id-spec), as Zeek, Suricata and Wireshark write it, so a
 * --records row joins with their flow logs by string comparison. */
#ifndef NFSSCOPE_COMMUNITY_ID_H
#define NFSSCOPE_COMMUNITY_ID_H

#include <stdint.h>

#include "flow_key.h"

/* "1:" + base64 of a 20-byte SHA-1 (28 characters) + NUL. */
#define COMMUNITY_ID_LEN 31

/* The ID of the connection k (TCP or UDP; either direction gives the same
 * ID) with `seed` (0 is the default of every implementation). */
void community_id_v1(const struct flow_key *k, uint16_t seed, char out[COMMUNITY_ID_LEN]);

#endif
