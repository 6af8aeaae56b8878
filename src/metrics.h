/* SPDX-License-Identifier: BSD-3-Clause */
/* metrics.h: the --metrics endpoint: a minimal HTTP/1.1 server (RFC 9112)
 * for GET /metrics (and a landing page at /), served from the capture's own
 * poll() loop.
 *
 * Single-threaded and non-blocking: the listening socket and the clients'
 * sockets are added to the loop's pollfd set (metrics_fill) and served when
 * ready (metrics_serve), so a scrape reads the stats between two packets and
 * sees a consistent snapshot without locks. Everything is bounded: at most
 * `max_clients` connections, a request of at most METRICS_REQ_MAX bytes,
 * its head complete within 2 s of accept (at most `timeout_s`), each
 * connection at most `timeout_s` seconds from accept to close (a client
 * sending or reading slowly is cut off and counted), and one request per
 * connection (Connection: close). When every slot is busy, a new connection
 * takes the slot of the one that has waited longest without a complete
 * request (counted), so idle or slow clients cannot starve the scrapes; it
 * is refused (and counted) only when every slot is sending a response. The
 * body is rendered once per request by a callback into a buffer of at most
 * METRICS_BODY_MAX bytes. */
#ifndef NFSSCOPE_METRICS_H
#define NFSSCOPE_METRICS_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#define METRICS_REQ_MAX 4096          /* request line and headers */
#define METRICS_BODY_MAX (16u << 20)  /* a rendered body */
#define METRICS_ACCEPT_BUDGET 64      /* connections accepted per metrics_serve() */

/* What a request asks for (metrics_parse_request). */
enum metrics_req {
    MREQ_INCOMPLETE,   /* no blank line yet: read more */
    MREQ_METRICS,      /* GET or HEAD /metrics (a query string is ignored) */
    MREQ_ROOT,         /* GET or HEAD /: a page that links to /metrics */
    MREQ_NOT_FOUND,    /* another path: 404 */
    MREQ_BAD_METHOD,   /* not GET or HEAD: 405 */
    MREQ_BAD,          /* not an HTTP/1.x request line: 400 */
    MREQ_TOO_LARGE,    /* METRICS_REQ_MAX bytes without a blank line: 431 */
};

/* Classify the bytes received so far (pure; `buf` need not be terminated).
 * *head is set for HEAD requests. */
enum metrics_req metrics_parse_request(const char *buf, size_t len, bool *head);

/* "ADDR:PORT" with a numeric IPv4 address (or "localhost", 127.0.0.1), or
 * "[IPV6]:PORT"; port 0 to 65535 (0: any free port). No name lookups. Returns 0, or -1 with `err` set (one line
 * naming what is wrong). */
int metrics_parse_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *sslen,
                       char *err, size_t errlen);

/* Writes the body of a 200 response; returns 0, or -1 (500). */
typedef int metrics_render_fn(FILE *out, void *arg);

struct metrics;

/* Listen on `spec` (already validated by metrics_parse_addr, or not).
 * Returns 0; 1 with `err` set when the socket cannot be had (address in
 * use, not local, no permission); 2 for a bad address. */
int metrics_open(struct metrics **out, const char *spec, size_t max_clients, double timeout_s,
                 metrics_render_fn *render, void *render_arg, char *err, size_t errlen);
/* The bound port (useful with port 0) and a printable "http://ADDR:PORT/metrics". */
uint16_t metrics_port(const struct metrics *m);
void metrics_url(const struct metrics *m, char *buf, size_t len);

/* At most this many pollfds are filled by metrics_fill. */
size_t metrics_max_fds(const struct metrics *m);
/* Add the listening socket and every client to fds[0..max) and lower *wait_s
 * to the nearest client deadline. `now`: a monotonic clock in seconds.
 * Returns how many were added. */
size_t metrics_fill(struct metrics *m, struct pollfd *fds, size_t max, double now, double *wait_s);
/* Serve what poll() found in the fds metrics_fill added (n of them, in the
 * same order), and close connections past their deadline. Never blocks. */
void metrics_serve(struct metrics *m, const struct pollfd *fds, size_t n, double now);

struct metrics_counters {
    uint64_t requests; /* requests answered (any status) */
    uint64_t rejected; /* connections refused: every client slot sending a response */
    uint64_t timeouts; /* connections cut off at their deadline */
    uint64_t idle_dropped; /* connections closed to make room, no complete request yet */
};
void metrics_counters(const struct metrics *m, struct metrics_counters *c);

void metrics_close(struct metrics *m); /* NULL is a no-op */

#endif
