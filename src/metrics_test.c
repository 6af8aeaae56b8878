/* SPDX-License-Identifier: BSD-3-Clause */
/* metrics_test.c: the --metrics HTTP server against hostile requests:
 * partial, oversized, malformed, slow (slowloris), too many clients, a
 * client that never reads; plus 404, 405, HEAD and the address parser. The
 * server runs in this process on 127.0.0.1 (port 0), driven step by step
 * through metrics_fill/poll/metrics_serve with an injected clock. */
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "t.h"

static size_t big_body; /* render this many extra bytes (a slow-reader test) */

static int
render(FILE *out, void *arg)
{
    size_t i;

    (void)arg;
    fputs("# HELP test_up A test.\n# TYPE test_up gauge\ntest_up 1\n", out);
    for (i = 0; i < big_body / 64; i++)
        fprintf(out, "# padding padding padding padding padding padding padding pad %04zu\n",
                i % 10000);
    return 0;
}

static enum metrics_req
P(const char *s, bool *head)
{
    return metrics_parse_request(s, strlen(s), head);
}

static void
test_parse(void)
{
    static const char ok[] = "GET /metrics HTTP/1.1\r\nHost: localhost:9100\r\nAccept: */*\r\n\r\n";
    char big[METRICS_REQ_MAX + 16];
    bool head;
    size_t i;

    EQ(P(ok, &head), MREQ_METRICS);
    CHECK(!head);
    EQ(P("HEAD /metrics HTTP/1.0\r\n\r\n", &head), MREQ_METRICS);
    CHECK(head);
    EQ(P("GET /metrics?name[]=x HTTP/1.1\n\n", &head), MREQ_METRICS); /* bare LF; query */
    EQ(P("GET / HTTP/1.1\r\n\r\n", &head), MREQ_ROOT);
    EQ(P("GET /?x=1 HTTP/1.1\r\n\r\n", &head), MREQ_ROOT);
    EQ(P("HEAD / HTTP/1.1\r\n\r\n", &head), MREQ_ROOT);
    CHECK(head);
    EQ(P("GET /index.html HTTP/1.1\r\n\r\n", &head), MREQ_NOT_FOUND);
    EQ(P("GET /metricsx HTTP/1.1\r\n\r\n", &head), MREQ_NOT_FOUND);
    EQ(P("GET /metrics/ HTTP/1.1\r\n\r\n", &head), MREQ_NOT_FOUND);
    EQ(P("POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", &head), MREQ_BAD_METHOD);
    EQ(P("get /metrics HTTP/1.1\r\n\r\n", &head), MREQ_BAD);
    EQ(P("GET /metrics HTTP/2.0\r\n\r\n", &head), MREQ_BAD);
    EQ(P("GET /metrics HTTP/1.1 \r\n\r\n", &head), MREQ_BAD);
    EQ(P("GET metrics HTTP/1.1\r\n\r\n", &head), MREQ_BAD);
    EQ(P("GET  /metrics HTTP/1.1\r\n\r\n", &head), MREQ_BAD);
    EQ(P("GET /met\x01rics HTTP/1.1\r\n\r\n", &head), MREQ_BAD);
    EQ(P("\r\n\r\n", &head), MREQ_BAD);
    EQ(P("GARBAGE\r\n", &head), MREQ_BAD); /* judged at the first line end */
    EQ(P("GET /metrics HTTP/1.1\r\nX: a\x7f\r\n\r\n", &head), MREQ_BAD);
    EQ(metrics_parse_request("GET /metrics HTTP/1.1\r\nX: \0\r\n\r\n", 31, &head), MREQ_BAD);
    /* Every proper prefix of a good request is incomplete, never an error. */
    for (i = 0; i + 1 < sizeof ok - 1; i++)
        EQ(metrics_parse_request(ok, i, &head), MREQ_INCOMPLETE);
    /* Oversized: a header section that never ends. */
    memset(big, 'a', sizeof big);
    memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
    EQ(metrics_parse_request(big, METRICS_REQ_MAX - 1, &head), MREQ_INCOMPLETE);
    EQ(metrics_parse_request(big, METRICS_REQ_MAX, &head), MREQ_TOO_LARGE);
}

static void
test_addr(void)
{
    struct sockaddr_storage ss;
    socklen_t len;
    char err[256];

    EQ(metrics_parse_addr("127.0.0.1:9100", &ss, &len, err, sizeof err), 0);
    EQ(ss.ss_family, AF_INET);
    EQ(ntohs(((struct sockaddr_in *)(void *)&ss)->sin_port), 9100);
    EQ(metrics_parse_addr("[::1]:9100", &ss, &len, err, sizeof err), 0);
    EQ(ss.ss_family, AF_INET6);
    EQ(ntohs(((struct sockaddr_in6 *)(void *)&ss)->sin6_port), 9100);
    EQ(metrics_parse_addr("localhost:0", &ss, &len, err, sizeof err), 0);
    EQ(ss.ss_family, AF_INET);
    EQ(metrics_parse_addr("0.0.0.0:65535", &ss, &len, err, sizeof err), 0);
    EQ(metrics_parse_addr("::1:9100", &ss, &len, err, sizeof err), -1);
    CHECK(strstr(err, "brackets") != NULL);
    EQ(metrics_parse_addr("127.0.0.1", &ss, &len, err, sizeof err), -1);
    EQ(metrics_parse_addr(":9100", &ss, &len, err, sizeof err), -1);
    EQ(metrics_parse_addr("127.0.0.1:", &ss, &len, err, sizeof err), -1);
    EQ(metrics_parse_addr("127.0.0.1:65536", &ss, &len, err, sizeof err), -1);
    EQ(metrics_parse_addr("127.0.0.1:99999999999", &ss, &len, err, sizeof err), -1);
    EQ(metrics_parse_addr("127.0.0.1:-1", &ss, &len, err, sizeof err), -1);
    EQ(metrics_parse_addr("127.0.0.1:9100x", &ss, &len, err, sizeof err), -1);
    EQ(metrics_parse_addr("300.1.1.1:80", &ss, &len, err, sizeof err), -1);
    EQ(metrics_parse_addr("example.org:80", &ss, &len, err, sizeof err), -1); /* no lookups */
    EQ(metrics_parse_addr("[::1]9100", &ss, &len, err, sizeof err), -1);
    EQ(metrics_parse_addr("[::1:9100", &ss, &len, err, sizeof err), -1);
    EQ(metrics_parse_addr("[127.0.0.1]:80", &ss, &len, err, sizeof err), -1);
}

/* ---- the server, driven by hand ------------------------------------------ */

static double now_s = 1000.0; /* the injected clock */

static void
pump(struct metrics *m)
{
    struct pollfd fds[16];
    double wait = 0.01;
    size_t n = metrics_fill(m, fds, 16, now_s, &wait);

    (void)poll(fds, (nfds_t)n, 5);
    metrics_serve(m, fds, n, now_s);
}

static int
client(uint16_t port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, O_NONBLOCK);
    return fd;
}

/* Pump the server and read the client's side until EOF (or `rounds`).
 * Returns the bytes read; *eof tells whether the server closed. */
static size_t
collect(struct metrics *m, int fd, char *buf, size_t cap, int rounds, bool *eof)
{
    size_t len = 0;

    *eof = false;
    while (rounds-- > 0) {
        ssize_t r;

        pump(m);
        while ((r = recv(fd, buf + len, cap - 1 - len, 0)) > 0)
            len += (size_t)r;
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
            *eof = true;
            break;
        }
        if (len >= cap - 1)
            break;
    }
    buf[len] = '\0';
    return len;
}

static char *
ask(struct metrics *m, const char *req, size_t reqlen, bool *eof)
{
    static char buf[1 << 16];
    int fd = client(metrics_port(m));

    CHECK(fd >= 0);
    if (fd < 0)
        return NULL;
    CHECK(send(fd, req, reqlen, 0) == (ssize_t)reqlen);
    collect(m, fd, buf, sizeof buf, 200, eof);
    close(fd);
    return buf;
}

static void
test_server(void)
{
    static const char get[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    struct metrics *m = NULL;
    struct metrics_counters n;
    char err[256], big[METRICS_REQ_MAX + 1000], url[128];
    char *r;
    bool eof;
    int a, b, c, i;
    size_t len;

    EQ(metrics_open(&m, "127.0.0.1:0", 2, 5.0, render, NULL, err, sizeof err), 0);
    if (!m)
        return;
    CHECK(metrics_port(m) != 0);
    metrics_url(m, url, sizeof url);
    CHECK(strncmp(url, "http://127.0.0.1:", 17) == 0);
    EQ(metrics_max_fds(m), 3);

    /* A second server on the same port: one line, exit status 1. */
    {
        struct metrics *m2 = NULL;
        char spec[64];
        snprintf(spec, sizeof spec, "127.0.0.1:%u", (unsigned)metrics_port(m));
        EQ(metrics_open(&m2, spec, 2, 5.0, render, NULL, err, sizeof err), 1);
        CHECK(strstr(err, "in use") != NULL);
        CHECK(m2 == NULL);
        EQ(metrics_open(&m2, "nonsense", 2, 5.0, render, NULL, err, sizeof err), 2);
    }

    r = ask(m, get, sizeof get - 1, &eof);
    CHECK(eof);
    CHECK(r && strncmp(r, "HTTP/1.1 200 OK\r\n", 17) == 0);
    CHECK(r && strstr(r, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
    CHECK(r && strstr(r, "Connection: close\r\n"));
    CHECK(r && strstr(r, "\r\n\r\n# HELP test_up A test.\n"));
    CHECK(r && strstr(r, "\nnfsscope_metrics_requests_total 1\n"));
    if (r) { /* Content-Length is the body's length */
        const char *body = strstr(r, "\r\n\r\n");
        const char *cl = strstr(r, "Content-Length: ");
        CHECK(body && cl && (size_t)atol(cl + 16) == strlen(body + 4));
    }

    r = ask(m, "HEAD /metrics HTTP/1.0\r\n\r\n", 26, &eof);
    CHECK(r && strncmp(r, "HTTP/1.1 200 OK\r\n", 17) == 0);
    CHECK(r && strstr(r, "Content-Length: 0\r\n") == NULL);
    CHECK(r && strlen(strstr(r, "\r\n\r\n")) == 4); /* headers only */

    r = ask(m, "GET /other HTTP/1.1\r\n\r\n", 23, &eof);
    CHECK(r && strncmp(r, "HTTP/1.1 404 Not Found\r\n", 24) == 0);
    r = ask(m, "DELETE /metrics HTTP/1.1\r\n\r\n", 28, &eof);
    CHECK(r && strncmp(r, "HTTP/1.1 405 Method Not Allowed\r\n", 33) == 0);
    CHECK(r && strstr(r, "Allow: GET, HEAD\r\n"));
    r = ask(m, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\n", 12, &eof); /* TLS hello */
    CHECK(r && strncmp(r, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
    CHECK(eof);

    /* Oversized: 431, and the connection ends though the client sent more. */
    memset(big, 'a', sizeof big);
    memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
    r = ask(m, big, sizeof big, &eof);
    CHECK(r && strncmp(r, "HTTP/1.1 431 ", 13) == 0);
    CHECK(eof);

    /* Partial: a request sent a byte per round still gets its answer. */
    a = client(metrics_port(m));
    CHECK(a >= 0);
    if (a >= 0) {
        static char buf[1 << 16];
        for (i = 0; i < (int)sizeof get - 1; i++) {
            CHECK(send(a, get + i, 1, 0) == 1);
            pump(m);
        }
        len = collect(m, a, buf, sizeof buf, 200, &eof);
        CHECK(len > 0 && strncmp(buf, "HTTP/1.1 200 OK\r\n", 17) == 0);
        close(a);
    }
    pump(m);

    /* Slowloris: two clients dribble and take both slots; a scraper still
     * gets its answer, in the slot of the one that has waited longest (a,
     * closed and counted); the other (b) is cut off when its request head
     * is not complete 2 s after accept. */
    a = client(metrics_port(m));
    b = client(metrics_port(m));
    CHECK(a >= 0 && b >= 0);
    if (a >= 0 && b >= 0) {
        static char buf[1 << 16];

        send(a, "GET /met", 8, 0);
        send(b, "G", 1, 0);
        for (i = 0; i < 5; i++)
            pump(m);
        now_s += 0.5;
        r = ask(m, get, sizeof get - 1, &eof);
        CHECK(r && strncmp(r, "HTTP/1.1 200 OK\r\n", 17) == 0);
        metrics_counters(m, &n);
        EQ(n.idle_dropped, 1);
        EQ(n.rejected, 0);
        EQ(n.timeouts, 0);
        collect(m, a, buf, sizeof buf, 5, &eof);
        CHECK(eof); /* a: closed, without a response */
        now_s += 1.0; /* b: 1.5 s after accept, still in time */
        pump(m);
        metrics_counters(m, &n);
        EQ(n.timeouts, 0);
        now_s += 0.51;
        pump(m);
        metrics_counters(m, &n);
        EQ(n.timeouts, 1);
        collect(m, b, buf, sizeof buf, 5, &eof);
        CHECK(eof);
        close(a);
        close(b);
    }
    /* A request head sent a byte per round within the 2 s is answered (the
     * partial test above), and so is one whose last byte comes at 1.9 s. */
    a = client(metrics_port(m));
    CHECK(a >= 0);
    if (a >= 0) {
        static char buf[1 << 16];

        send(a, get, 10, 0);
        pump(m);
        now_s += 1.9;
        pump(m);
        send(a, get + 10, sizeof get - 1 - 10, 0);
        len = collect(m, a, buf, sizeof buf, 200, &eof);
        CHECK(len > 0 && strncmp(buf, "HTTP/1.1 200 OK\r\n", 17) == 0);
        close(a);
    }
    pump(m);
    /* Refused only when every slot is sending a response: two clients ask
     * for a large body and never read; a third is closed at once (and
     * counted) while they hold the slots. */
    big_body = 8u << 20;
    a = client(metrics_port(m));
    b = client(metrics_port(m));
    CHECK(a >= 0 && b >= 0);
    if (a >= 0 && b >= 0) {
        static char buf[256];

        send(a, get, sizeof get - 1, 0);
        send(b, get, sizeof get - 1, 0);
        for (i = 0; i < 5; i++)
            pump(m);
        metrics_counters(m, &n);
        c = client(metrics_port(m));
        CHECK(c >= 0);
        if (c >= 0) {
            send(c, get, sizeof get - 1, 0);
            collect(m, c, buf, sizeof buf, 50, &eof);
            CHECK(eof); /* refused: closed without a response */
            close(c);
        }
        {
            struct metrics_counters n2;

            metrics_counters(m, &n2);
            EQ(n2.rejected, n.rejected + 1);
            EQ(n2.idle_dropped, n.idle_dropped);
        }
        now_s += 5.01;
        pump(m);
        close(a);
        close(b);
    }
    big_body = 0;
    r = ask(m, get, sizeof get - 1, &eof);
    CHECK(r && strncmp(r, "HTTP/1.1 200 OK\r\n", 17) == 0);

    /* A client that asks for a large body and never reads: the server never
     * blocks on it (each round returns at once) and drops it at the deadline. */
    big_body = 8u << 20;
    a = client(metrics_port(m));
    CHECK(a >= 0);
    if (a >= 0) {
        struct timespec t0, t1;
        double took;

        CHECK(send(a, get, sizeof get - 1, 0) == (ssize_t)(sizeof get - 1));
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (i = 0; i < 20; i++)
            pump(m);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        CHECK(took < 2.0); /* 20 rounds of a 5 ms poll, plus rendering 8 MiB once */
        /* meanwhile another client is served */
        big_body = 0;
        r = ask(m, get, sizeof get - 1, &eof);
        CHECK(r && strncmp(r, "HTTP/1.1 200 OK\r\n", 17) == 0);
        metrics_counters(m, &n);
        now_s += 5.01;
        pump(m);
        {
            struct metrics_counters n2;
            metrics_counters(m, &n2);
            EQ(n2.timeouts, n.timeouts + 1);
        }
        close(a);
    }
    big_body = 0;
    metrics_close(m);
}

/* IPv6 loopback, when the host has it. */
static void
test_ipv6(void)
{
    struct metrics *m = NULL;
    char err[256], url[128];
    int rc = metrics_open(&m, "[::1]:0", 1, 5.0, render, NULL, err, sizeof err);

    if (rc != 0) {
        printf("skip: no IPv6 loopback here (%s)\n", err);
        return;
    }
    metrics_url(m, url, sizeof url);
    CHECK(strncmp(url, "http://[::1]:", 13) == 0);
    metrics_close(m);
}

int
main(void)
{
    test_parse();
    test_addr();
    test_server();
    test_ipv6();
    return t_done();
}
