/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_http.c: the --metrics endpoint's parsers on raw bytes
 * (metrics_parse_request, metrics_parse_addr): what a client on the network,
 * or the command line, hands nfsscope.
 *
 * The request parser sees the whole input and three shorter prefixes, as a
 * request arriving in pieces. Checked: the result is one of the enum's
 * values; a request that is still incomplete is shorter than
 * METRICS_REQ_MAX and one that is too large is not; GET/HEAD of /metrics
 * only when the bytes start with that request line; once a prefix is
 * answered (anything but incomplete) a longer one is answered too. The
 * address parser gets the input as a string (up to 255 bytes): on success
 * the address is IPv4 or IPv6 with a matching length, on failure there is
 * a message (main.c's say() escapes what it quotes from the input). */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "metrics.h"

static enum metrics_req
check_request(const char *b, size_t n)
{
    bool head = true;
    enum metrics_req r = metrics_parse_request(b, n, &head);

    switch (r) {
    case MREQ_INCOMPLETE:
        if (n >= METRICS_REQ_MAX)
            abort();
        break;
    case MREQ_TOO_LARGE:
        if (n < METRICS_REQ_MAX)
            abort();
        break;
    case MREQ_METRICS:
        if (head ? n < 14 || memcmp(b, "HEAD /metrics", 13) != 0
                 : n < 13 || memcmp(b, "GET /metrics", 12) != 0)
            abort();
        break;
    case MREQ_ROOT: /* the landing page: the path "/", a query string ignored */
        if (head ? n < 7 || memcmp(b, "HEAD /", 6) != 0 || (b[6] != ' ' && b[6] != '?')
                 : n < 6 || memcmp(b, "GET /", 5) != 0 || (b[5] != ' ' && b[5] != '?'))
            abort();
        break;
    case MREQ_NOT_FOUND:
    case MREQ_BAD_METHOD:
    case MREQ_BAD:
        break;
    default:
        abort();
    }
    return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *b = (const char *)data;
    size_t cuts[3] = { size / 3, size / 2, size ? size - 1 : 0 }, i;
    enum metrics_req whole = check_request(b, size);
    struct sockaddr_storage ss;
    socklen_t sl = 0;
    char spec[256], err[256];
    size_t n = size < sizeof spec - 1 ? size : sizeof spec - 1;

    for (i = 0; i < 3; i++)
        if (check_request(b, cuts[i]) != MREQ_INCOMPLETE && whole == MREQ_INCOMPLETE)
            abort(); /* answered early, then "incomplete" with more bytes */

    memcpy(spec, data, n);
    spec[n] = '\0';
    err[0] = '\0';
    if (metrics_parse_addr(spec, &ss, &sl, err, sizeof err) == 0) {
        if (!((ss.ss_family == AF_INET && sl == sizeof(struct sockaddr_in)) ||
              (ss.ss_family == AF_INET6 && sl == sizeof(struct sockaddr_in6))))
            abort();
    } else if (!err[0]) {
        abort();
    }
    return 0;
}
