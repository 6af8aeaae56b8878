/* SPDX-License-Identifier: BSD-3-Clause */
/* metrics.c: the --metrics HTTP endpoint; see metrics.h for the bounds.
 *
 * HTTP/1.1 (RFC 9112) reduced to what a scraper needs: one request per
 * connection, GET or HEAD, the request line checked strictly (§3), the
 * header fields read but not interpreted, a response with Content-Length and
 * Connection: close (§9.6). A connection goes through
 *
 *   1. READ:  bytes are gathered until a blank line ends the header section
 *             (or the request line is already bad, or the buffer is full);
 *   2. WRITE: the status line, headers and body are sent as the socket
 *             accepts them;
 *   3. DRAIN: our side is shut down and what the client still sends is read
 *             and dropped until it closes (closing with unread bytes would
 *             reset the connection and could lose the response);
 *
 * and is closed at the end, on an error, or at its deadline. */
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum cstate { C_FREE, C_READ, C_WRITE, C_DRAIN };

struct mclient {
    int fd;
    enum cstate st;
    double since;   /* accepted at */
    double deadline;
    size_t pidx;    /* its pollfd in the last metrics_fill, or SIZE_MAX */
    size_t inlen;
    char in[METRICS_REQ_MAX];
    char hdr[256];
    size_t hdrlen;
    char *body;     /* rendered (owned when body_owned) or a static text */
    size_t bodylen;
    bool body_owned;
    size_t off;     /* bytes of hdr + body sent */
};

struct metrics {
    int lfd;
    struct sockaddr_storage addr; /* as bound (the port filled in) */
    size_t maxc;
    double timeout_s;
    metrics_render_fn *render;
    void *render_arg;
    struct mclient *c;
    struct metrics_counters n;
};

#define DRAIN_S 1.0 /* after the response, how long a client may keep sending */
#define HEAD_S 2.0  /* from accept to a complete request head (a scraper sends it at once) */

/* ---- request parsing (pure) ----------------------------------------------- */

static bool
tchar_upper(char ch)
{
    return ch >= 'A' && ch <= 'Z';
}

/* RFC 9112 §3: method SP request-target SP HTTP-version. Lenient only in
 * accepting a bare LF as the line end (§2.2). */
static enum metrics_req
request_line(const char *b, size_t len, bool *head)
{
    size_t i = 0, m, t0, t1;

    while (i < len && i < 16 && tchar_upper(b[i]))
        i++;
    m = i;
    if (m == 0 || i >= len || b[i] != ' ')
        return MREQ_BAD;
    t0 = ++i;
    while (i < len && b[i] > 0x20 && b[i] < 0x7f)
        i++;
    t1 = i;
    if (t1 == t0 || b[t0] != '/' || i >= len || b[i] != ' ')
        return MREQ_BAD;
    i++;
    if (len - i < 8 || memcmp(b + i, "HTTP/1.", 7) != 0 || (b[i + 7] != '0' && b[i + 7] != '1'))
        return MREQ_BAD;
    i += 8;
    if (i < len && b[i] == '\r')
        i++;
    if (i != len)
        return MREQ_BAD;
    *head = m == 4 && memcmp(b, "HEAD", 4) == 0;
    if (!*head && !(m == 3 && memcmp(b, "GET", 3) == 0))
        return MREQ_BAD_METHOD;
    for (i = t0; i < t1 && b[i] != '?'; i++)
        ;
    if (i - t0 == 8 && memcmp(b + t0, "/metrics", 8) == 0)
        return MREQ_METRICS;
    if (i - t0 == 1)
        return MREQ_ROOT;
    return MREQ_NOT_FOUND;
}

enum metrics_req
metrics_parse_request(const char *buf, size_t len, bool *head)
{
    const char *nl = memchr(buf, '\n', len);
    enum metrics_req r;
    size_t i;

    *head = false;
    if (nl) {
        r = request_line(buf, (size_t)(nl - buf), head);
        if (r == MREQ_BAD)
            return r; /* no need to wait for the headers */
    }
    /* The header section ends with an empty line (CRLF CRLF, or LF LF). */
    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)buf[i];

        if (ch < 0x20 && ch != '\r' && ch != '\n' && ch != '\t')
            return MREQ_BAD;
        if (ch == 0x7f)
            return MREQ_BAD;
        if (ch == '\n' && i > 0 &&
            (buf[i - 1] == '\n' || (buf[i - 1] == '\r' && i > 1 && buf[i - 2] == '\n')))
            return request_line(buf, (size_t)(nl - buf), head);
    }
    return len >= METRICS_REQ_MAX ? MREQ_TOO_LARGE : MREQ_INCOMPLETE;
}

/* ---- addresses -------------------------------------------------------------- */

int
metrics_parse_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *sslen, char *err,
                   size_t errlen)
{
    char host[256];
    const char *colon, *port;
    struct addrinfo hints, *res = NULL;
    unsigned long p = 0;
    size_t hl, i;
    int rc;

    if (spec[0] == '[') {
        const char *rb = strchr(spec, ']');
        if (!rb || rb[1] != ':') {
            snprintf(err, errlen, "--metrics: \"%s\" is not [IPV6]:PORT", spec);
            return -1;
        }
        hl = (size_t)(rb - spec - 1);
        memcpy(host, spec + 1, hl < sizeof host ? hl : 0);
        colon = rb + 1;
    } else {
        colon = strrchr(spec, ':');
        if (!colon || colon == spec) {
            snprintf(err, errlen,
                     "--metrics: \"%s\" is not ADDR:PORT (e.g. 127.0.0.1:9100 or [::1]:9100)",
                     spec);
            return -1;
        }
        hl = (size_t)(colon - spec);
        if (memchr(spec, ':', hl)) {
            snprintf(err, errlen, "--metrics: \"%s\": an IPv6 address goes in brackets, as in"
                                  " [::1]:9100", spec);
            return -1;
        }
        memcpy(host, spec, hl < sizeof host ? hl : 0);
    }
    if (hl == 0 || hl >= sizeof host) {
        snprintf(err, errlen, "--metrics: \"%s\": no address or too long", spec);
        return -1;
    }
    host[hl] = '\0';
    port = colon + 1;
    for (i = 0; port[i]; i++) {
        if (port[i] < '0' || port[i] > '9' || i >= 5)
            break;
        p = p * 10 + (unsigned long)(port[i] - '0');
    }
    if (i == 0 || port[i] || p > 65535) {
        snprintf(err, errlen, "--metrics: \"%s\": the port is not a number from 0 to 65535",
                 spec);
        return -1;
    }
    if (spec[0] != '[' && strcmp(host, "localhost") == 0)
        strcpy(host, "127.0.0.1");
    /* Numeric only: no name lookup that could hang the start. */
    memset(&hints, 0, sizeof hints);
    hints.ai_family = spec[0] == '[' ? AF_INET6 : AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST;
    rc = getaddrinfo(host, NULL, &hints, &res);
    if (rc != 0 || !res || res->ai_addrlen > sizeof *ss) {
        snprintf(err, errlen, "--metrics: \"%s\": \"%s\" is not an address: %s", spec, host,
                 rc ? gai_strerror(rc) : "no result");
        if (res)
            freeaddrinfo(res);
        return -1;
    }
    memset(ss, 0, sizeof *ss);
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *sslen = (socklen_t)res->ai_addrlen;
    freeaddrinfo(res);
    if (ss->ss_family == AF_INET)
        ((struct sockaddr_in *)(void *)ss)->sin_port = htons((uint16_t)p);
    else if (ss->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)(void *)ss)->sin6_port = htons((uint16_t)p);
    else {
        snprintf(err, errlen, "--metrics: \"%s\": not an IPv4 or IPv6 address", spec);
        return -1;
    }
    return 0;
}

/* ---- the server -------------------------------------------------------------- */

int
metrics_open(struct metrics **out, const char *spec, size_t max_clients, double timeout_s,
             metrics_render_fn *render, void *render_arg, char *err, size_t errlen)
{
    struct metrics *m;
    socklen_t len;
    int one = 1;
    size_t i;

    *out = NULL;
    m = calloc(1, sizeof *m);
    if (m)
        m->c = calloc(max_clients ? max_clients : 1, sizeof *m->c);
    if (!m || !m->c) {
        free(m);
        snprintf(err, errlen, "--metrics: out of memory");
        return 1;
    }
    m->lfd = -1;
    m->maxc = max_clients ? max_clients : 1;
    m->timeout_s = timeout_s > 0 ? timeout_s : 10;
    m->render = render;
    m->render_arg = render_arg;
    for (i = 0; i < m->maxc; i++)
        m->c[i].fd = -1;
    if (metrics_parse_addr(spec, &m->addr, &len, err, errlen) != 0) {
        metrics_close(m);
        return 2;
    }
    m->lfd = socket(m->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m->lfd < 0) {
        snprintf(err, errlen, "--metrics %s: socket: %s", spec, strerror(errno));
        metrics_close(m);
        return 1;
    }
    (void)setsockopt(m->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (m->addr.ss_family == AF_INET6) /* [::] means IPv6 only: say 0.0.0.0 for IPv4 */
        (void)setsockopt(m->lfd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(m->lfd, (struct sockaddr *)&m->addr, len) != 0 || listen(m->lfd, 16) != 0) {
        const char *why = strerror(errno);
        snprintf(err, errlen, "--metrics %s: cannot listen: %s%s", spec, why,
                 errno == EADDRINUSE ? " (another program has this port)" : "");
        metrics_close(m);
        return 1;
    }
    len = sizeof m->addr;
    (void)getsockname(m->lfd, (struct sockaddr *)&m->addr, &len);
    *out = m;
    return 0;
}

uint16_t
metrics_port(const struct metrics *m)
{
    if (m->addr.ss_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *)(const void *)&m->addr)->sin6_port);
    return ntohs(((const struct sockaddr_in *)(const void *)&m->addr)->sin_port);
}

void
metrics_url(const struct metrics *m, char *buf, size_t len)
{
    char a[INET6_ADDRSTRLEN] = "?";

    if (m->addr.ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)&m->addr)->sin6_addr, a,
                  sizeof a);
        snprintf(buf, len, "http://[%s]:%u/metrics", a, (unsigned)metrics_port(m));
    } else {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)&m->addr)->sin_addr, a,
                  sizeof a);
        snprintf(buf, len, "http://%s:%u/metrics", a, (unsigned)metrics_port(m));
    }
}

static void
drop(struct mclient *c)
{
    if (c->fd >= 0)
        close(c->fd);
    if (c->body_owned)
        free(c->body);
    c->fd = -1;
    c->st = C_FREE;
    c->body = NULL;
    c->body_owned = false;
    c->bodylen = c->off = c->hdrlen = c->inlen = 0;
}

/* Render the metrics and the server's own counters. NULL on failure. */
static char *
render_body(struct metrics *m, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    int rc;

    if (!f)
        return NULL;
    rc = m->render ? m->render(f, m->render_arg) : 0;
    fprintf(f,
            "# HELP nfsscope_metrics_requests_total HTTP requests answered by --metrics.\n"
            "# TYPE nfsscope_metrics_requests_total counter\n"
            "nfsscope_metrics_requests_total %" PRIu64 "\n"
            "# HELP nfsscope_metrics_rejected_total Connections refused: every client slot"
            " was sending a response.\n"
            "# TYPE nfsscope_metrics_rejected_total counter\n"
            "nfsscope_metrics_rejected_total %" PRIu64 "\n"
            "# HELP nfsscope_metrics_timeouts_total Connections cut off at their deadline.\n"
            "# TYPE nfsscope_metrics_timeouts_total counter\n"
            "nfsscope_metrics_timeouts_total %" PRIu64 "\n"
            "# HELP nfsscope_metrics_idle_dropped_total Connections closed to make room for a"
            " new one: every slot was busy and this one had sent no complete request.\n"
            "# TYPE nfsscope_metrics_idle_dropped_total counter\n"
            "nfsscope_metrics_idle_dropped_total %" PRIu64 "\n",
            m->n.requests, m->n.rejected, m->n.timeouts, m->n.idle_dropped);
    if (fclose(f) != 0 || rc != 0 || n > METRICS_BODY_MAX) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* Prepare the response to a complete (or hopeless) request. */
static void
respond(struct metrics *m, struct mclient *c, enum metrics_req r, bool head)
{
    /* As node_exporter's: a person who opens the address finds the link. */
    static char root[] = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                         "<title>nfsscope exporter</title></head>\n<body><h1>nfsscope"
                         " exporter</h1>\n<p><a href=\"/metrics\">Metrics</a></p>\n"
                         "</body></html>\n";
    static char not_found[] = "not found: the metrics are at /metrics\n";
    static char bad_method[] = "method not allowed: use GET\n";
    static char bad[] = "bad request\n";
    static char too_large[] = "request header section too large\n";
    static char failed[] = "cannot render the metrics\n";
    const char *status = "200 OK", *extra = "";
    const char *type = "text/plain; charset=utf-8";

    m->n.requests++;
    c->body_owned = false;
    switch (r) {
    case MREQ_METRICS:
        c->body = render_body(m, &c->bodylen);
        if (c->body) {
            c->body_owned = true;
            type = "text/plain; version=0.0.4; charset=utf-8";
            break;
        }
        status = "500 Internal Server Error";
        c->body = failed;
        break;
    case MREQ_ROOT:
        type = "text/html; charset=utf-8";
        c->body = root;
        break;
    case MREQ_NOT_FOUND:
        status = "404 Not Found";
        c->body = not_found;
        break;
    case MREQ_BAD_METHOD:
        status = "405 Method Not Allowed";
        extra = "Allow: GET, HEAD\r\n";
        c->body = bad_method;
        break;
    case MREQ_TOO_LARGE:
        status = "431 Request Header Fields Too Large";
        c->body = too_large;
        break;
    case MREQ_BAD:
    case MREQ_INCOMPLETE:
        status = "400 Bad Request";
        c->body = bad;
        break;
    }
    if (!c->body_owned)
        c->bodylen = strlen(c->body);
    c->hdrlen = (size_t)snprintf(c->hdr, sizeof c->hdr,
                                 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                                 "%sConnection: close\r\n\r\n",
                                 status, type, c->bodylen, extra);
    if (head) { /* HEAD: the same headers, no body (RFC 9110 §9.3.2) */
        if (c->body_owned)
            free(c->body);
        c->body = NULL;
        c->body_owned = false;
        c->bodylen = 0;
    }
    c->off = 0;
    c->st = C_WRITE;
    c->deadline = c->since + m->timeout_s; /* the whole life, now that it has asked */
}

static void
do_read(struct metrics *m, struct mclient *c)
{
    for (;;) {
        ssize_t r = recv(c->fd, c->in + c->inlen, sizeof c->in - c->inlen, MSG_DONTWAIT);
        enum metrics_req q;
        bool head;

        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            drop(c); /* gone before asking anything complete */
            return;
        }
        if (r < 0)
            return;
        c->inlen += (size_t)r;
        q = metrics_parse_request(c->in, c->inlen, &head);
        if (q != MREQ_INCOMPLETE) {
            respond(m, c, q, head);
            return;
        }
    }
}

static void
do_write(struct mclient *c, double now)
{
    while (c->off < c->hdrlen + c->bodylen) {
        const char *p = c->off < c->hdrlen ? c->hdr + c->off : c->body + (c->off - c->hdrlen);
        size_t n = c->off < c->hdrlen ? c->hdrlen - c->off : c->bodylen - (c->off - c->hdrlen);
        ssize_t w = send(c->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);

        if (w < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                drop(c);
            return;
        }
        c->off += (size_t)w;
    }
    if (c->body_owned)
        free(c->body);
    c->body = NULL;
    c->body_owned = false;
    shutdown(c->fd, SHUT_WR);
    c->st = C_DRAIN;
    if (c->deadline > now + DRAIN_S)
        c->deadline = now + DRAIN_S;
}

static void
do_drain(struct mclient *c)
{
    char junk[1024];

    for (;;) {
        ssize_t r = recv(c->fd, junk, sizeof junk, MSG_DONTWAIT);

        if (r > 0)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        drop(c); /* the client closed: done */
        return;
    }
}

/* The slot for a new connection: a free one; else the one that has waited
 * longest without a complete request (idle or slow clients cannot keep a
 * scraper out), else the oldest that is done and waits for its client to
 * close; NULL when every slot is sending a response. */
static struct mclient *
slot_for_new(struct metrics *m)
{
    struct mclient *reading = NULL, *draining = NULL;
    size_t i;

    for (i = 0; i < m->maxc; i++) {
        struct mclient *c = &m->c[i];

        if (c->st == C_FREE)
            return c;
        if (c->st == C_READ && (!reading || c->since < reading->since))
            reading = c;
        if (c->st == C_DRAIN && (!draining || c->since < draining->since))
            draining = c;
    }
    return reading ? reading : draining;
}

static void
do_accept(struct metrics *m, double now)
{
    unsigned k;

    for (k = 0; k < METRICS_ACCEPT_BUDGET; k++) {
        int fd = accept(m->lfd, NULL, NULL);
        struct mclient *c;

        if (fd < 0)
            return; /* EAGAIN, or an error for that one connection only */
        if (fcntl(fd, F_SETFL, O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
            close(fd);
            continue;
        }
        c = slot_for_new(m);
        if (!c) {
            m->n.rejected++;
            close(fd);
            continue;
        }
        if (c->st == C_READ)
            m->n.idle_dropped++;
        drop(c);
        c->fd = fd;
        c->st = C_READ;
        c->since = now;
        c->deadline = now + (m->timeout_s < HEAD_S ? m->timeout_s : HEAD_S);
        c->pidx = SIZE_MAX;
        c->inlen = 0;
    }
}

size_t
metrics_max_fds(const struct metrics *m)
{
    return m->maxc + 1;
}

size_t
metrics_fill(struct metrics *m, struct pollfd *fds, size_t max, double now, double *wait_s)
{
    size_t n = 0, i;

    if (n < max) {
        fds[n].fd = m->lfd;
        fds[n].events = POLLIN;
        fds[n].revents = 0;
        n++;
    }
    for (i = 0; i < m->maxc; i++) {
        struct mclient *c = &m->c[i];

        c->pidx = SIZE_MAX;
        if (c->st == C_FREE || n >= max)
            continue;
        c->pidx = n;
        fds[n].fd = c->fd;
        fds[n].events = c->st == C_WRITE ? POLLOUT : POLLIN;
        fds[n].revents = 0;
        n++;
        if (wait_s && c->deadline - now < *wait_s)
            *wait_s = c->deadline - now > 0 ? c->deadline - now : 0;
    }
    return n;
}

void
metrics_serve(struct metrics *m, const struct pollfd *fds, size_t n, double now)
{
    size_t i;

    for (i = 0; i < m->maxc; i++) {
        struct mclient *c = &m->c[i];
        short rev = 0;

        if (c->st == C_FREE)
            continue;
        if (c->pidx < n && fds[c->pidx].fd == c->fd)
            rev = fds[c->pidx].revents;
        if (rev & (POLLIN | POLLHUP | POLLERR)) {
            if (c->st == C_READ)
                do_read(m, c);
            else if (c->st == C_DRAIN)
                do_drain(c);
        }
        if (c->st == C_WRITE && (rev & (POLLOUT | POLLERR | POLLHUP) || c->off == 0))
            do_write(c, now);
        if (c->st != C_FREE && now >= c->deadline) {
            if (c->st != C_DRAIN)
                m->n.timeouts++;
            drop(c);
        }
    }
    if (n > 0 && fds[0].fd == m->lfd && (fds[0].revents & POLLIN))
        do_accept(m, now);
}

void
metrics_counters(const struct metrics *m, struct metrics_counters *c)
{
    *c = m->n;
}

void
metrics_close(struct metrics *m)
{
    size_t i;

    if (!m)
        return;
    for (i = 0; m->c && i < m->maxc; i++)
        drop(&m->c[i]);
    if (m->lfd >= 0)
        close(m->lfd);
    free(m->c);
    free(m);
}
