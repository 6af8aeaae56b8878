/* SPDX-License-Identifier: BSD-3-Clause */
/* iflist.h: -D, the interfaces a live capture can open, listed as tcpdump -D
 * lists them (pcap_findalldevs). */
#ifndef NFSSCOPE_IFLIST_H
#define NFSSCOPE_IFLIST_H

#include <stddef.h>
#include <stdio.h>

/* "N.NAME (DESCRIPTION) [FLAGS]" per interface, numbered from 1; names and
 * descriptions escaped for the terminal. 0, or -1 with a reason in err. */
int iflist_print(FILE *out, char *err, size_t errlen);

#endif
