/* SPDX-License-Identifier: BSD-3-Clause */
/* iflist.c: -D (see iflist.h). The flags are tcpdump's words for the
 * PCAP_IF_* bits: Up, Running, Loopback, Wireless, and the connection
 * status of interfaces that have one. */
#include "iflist.h"

#include <pcap/pcap.h>
#include <string.h>

#include "term_escape.h"

static void
esc(FILE *out, const char *s)
{
    char buf[1024];

    term_escape(buf, sizeof buf, (const unsigned char *)s, strlen(s));
    fputs(buf, out);
}

static void
word(FILE *out, const char **sep, const char *w)
{
    fprintf(out, "%s%s", *sep, w);
    *sep = ", ";
}

/* tcpdump's order and words; "none" when nothing applies. */
static void
flags(FILE *out, bpf_u_int32 f)
{
    const char *sep = "";

    fputs(" [", out);
    if (f & PCAP_IF_UP)
        word(out, &sep, "Up");
    if (f & PCAP_IF_RUNNING)
        word(out, &sep, "Running");
    if (f & PCAP_IF_LOOPBACK)
        word(out, &sep, "Loopback");
    if (f & PCAP_IF_WIRELESS)
        word(out, &sep, "Wireless");
    switch (f & PCAP_IF_CONNECTION_STATUS) {
    case PCAP_IF_CONNECTION_STATUS_CONNECTED:
        word(out, &sep, f & PCAP_IF_WIRELESS ? "Associated" : "Connected");
        break;
    case PCAP_IF_CONNECTION_STATUS_DISCONNECTED:
        word(out, &sep, f & PCAP_IF_WIRELESS ? "Not associated" : "Disconnected");
        break;
    default: /* unknown, not applicable: nothing */
        break;
    }
    if (!sep[0])
        fputs("none", out);
    fputc(']', out);
}

int
iflist_print(FILE *out, char *err, size_t errlen)
{
    char ebuf[PCAP_ERRBUF_SIZE] = "";
    pcap_if_t *all = NULL, *d;
    int i = 1;

    if (pcap_findalldevs(&all, ebuf) != 0) {
        snprintf(err, errlen, "-D: cannot list the interfaces: %s", ebuf);
        return -1;
    }
    if (!all) {
        snprintf(err, errlen, "-D: no interface to capture on (permission?)");
        return -1;
    }
    for (d = all; d; d = d->next, i++) {
        fprintf(out, "%d.", i);
        esc(out, d->name);
        if (d->description) {
            fputs(" (", out);
            esc(out, d->description);
            fputc(')', out);
        }
        flags(out, d->flags);
        fputc('\n', out);
    }
    pcap_freealldevs(all);
    return ferror(out) ? -1 : 0;
}
