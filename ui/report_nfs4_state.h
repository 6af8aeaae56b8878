/* SPDX-License-Identifier: BSD-3-Clause */
/* report_nfs4_state.h: the NFSv4 state (src/nfs4_state.h) in the JSON
 * report: the nfs4 object's "clients", "sessions", "stateids" and
 * "delegations" (shapes in nfsscope(1) and doc/contract.md). */
#ifndef NFSSCOPE_REPORT_NFS4_STATE_H
#define NFSSCOPE_REPORT_NFS4_STATE_H

#include "json.h"

struct nfs4_state;

#define NFS4_REPORT_LIST 16 /* clients and sessions listed; the rest counted in list_other */

/* The four members, into the object being written; st NULL: nothing. */
void nfs4_state_json(struct json_w *w, const struct nfs4_state *st);

#endif
