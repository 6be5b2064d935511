/* A minimal NDJSON load client over Unix sockets: one epoll loop, one thread, every connection
 * non-blocking. It does what petspot-load's throughput mode does (each connection keeps DEPTH
 * requests in flight and times each window of DEPTH answers from its send to its last answer)
 * but without a thread per connection: at 1 request in flight, 64 blocking client threads cost
 * the two cores of a small box more than the server does, and set the pace of both servers.
 *   cc -O2 -o petspot-load-c Benchmarks/echo/load.c
 *   ./petspot-load-c SOCKET CONNECTIONS DEPTH SECONDS flow.get|flow.get-one|daemon.info [--echo]
 * flow.get: each connection starts a flow of its own first; flow.get-one: the first connection
 * starts one flow and every connection asks for it (with --echo, the server only echoes lines:
 * an id of the same length). Prints what petspot-load prints, in the same words. An
 * answer without "result" where it begins counts as a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PROGRAM "petspot-load-c"
#include "client.h"

#define BUF 65536

struct conn {
    int fd;
    uint32_t id;
    int wants_out;          /* the window did not fit the socket: waiting for room */
    char *window;           /* DEPTH request lines */
    size_t window_len, sent;
    int answered;           /* answers of this window read so far */
    int64_t window_began;
    size_t in_len;          /* bytes of a line not yet complete */
    char in[BUF];
};

/* Blocking: one request line, its one answer line (for the flow.start before the clock runs). */
static void call(int fd, const char *line, char *answer, size_t cap) {
    size_t n = strlen(line), off = 0;
    while (off < n) {
        ssize_t w = write(fd, line + off, n - off);
        if (w < 0) die("write");
        off += (size_t)w;
    }
    size_t len = 0;
    while (len == 0 || answer[len - 1] != '\n') {
        ssize_t r = read(fd, answer + len, cap - 1 - len);
        if (r <= 0) { fprintf(stderr, "petspot-load-c: no answer to %s", line); exit(1); }
        len += (size_t)r;
        if (len >= cap - 1) { fprintf(stderr, "petspot-load-c: answer too long\n"); exit(1); }
    }
    answer[len] = 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int ep;

static void want_out(struct conn *c, int out) {
    if (c->wants_out == out) return;
    c->wants_out = out;
    struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0), .data.u32 = c->id};
    if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev) < 0) die("epoll_ctl");
}

/* Sends what the socket takes of the window, the rest once it has room; returns -1 when the
 * connection is gone. */
static int send_window(struct conn *c) {
    while (c->sent < c->window_len) {
        ssize_t w = write(c->fd, c->window + c->sent, c->window_len - c->sent);
        if (w < 0) {
            if (errno != EAGAIN) return -1;
            want_out(c, 1);
            return 0;
        }
        c->sent += (size_t)w;
    }
    want_out(c, 0);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s SOCKET CONNECTIONS DEPTH SECONDS flow.get|flow.get-one|daemon.info [--echo]\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    int connections = atoi(argv[2]), depth = atoi(argv[3]);
    double seconds = atof(argv[4]);
    const char *method = argv[5];
    int echo = argc > 6 && strcmp(argv[6], "--echo") == 0;
    if (connections < 1 || depth < 1 || seconds <= 0) { fprintf(stderr, "bad arguments\n"); return 2; }

    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) die("epoll_create1");
    struct conn *conns = calloc((size_t)connections, sizeof *conns);
    if (!conns) die("calloc");
    char answer[BUF], line[256];
    int one_flow = strcmp(method, "flow.get-one") == 0;
    char flow[37] = "00000000-0000-4000-8000-000000000000";
    for (int i = 0; i < connections; i++) {
        struct conn *c = &conns[i];
        c->fd = connect_to(path);
        if (strcmp(method, "flow.get") == 0 || one_flow) {
            if (!echo && (!one_flow || i == 0)) {
                call(c->fd, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"flow.start\"}\n", answer, sizeof answer);
                const char *at = strstr(answer, "\"flow\":{\"id\":\"");
                if (!at) { fprintf(stderr, "petspot-load-c: flow.start gave no flow id: %s", answer); return 1; }
                memcpy(flow, at + strlen("\"flow\":{\"id\":\""), 36);
            }
            snprintf(line, sizeof line, "{\"id\":1,\"method\":\"flow.get\",\"params\":{\"flowId\":\"%s\"}}\n", flow);
        } else {
            snprintf(line, sizeof line, "{\"id\":1,\"method\":\"%s\"}\n", method);
        }
        size_t n = strlen(line);
        c->window_len = n * (size_t)depth;
        c->window = malloc(c->window_len);
        if (!c->window) die("malloc");
        for (int d = 0; d < depth; d++) memcpy(c->window + n * (size_t)d, line, n);
        if (fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0) die("fcntl");
        c->id = (uint32_t)i;
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = c->id};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) die("epoll_ctl");
    }

    size_t lat_cap = 1 << 16, lat_len = 0;
    int64_t *latencies = malloc(lat_cap * sizeof *latencies);
    if (!latencies) die("malloc");
    long long answered = 0, failures = 0;
    int64_t began = now_ns(), deadline = began + (int64_t)(seconds * 1e9);
    for (int i = 0; i < connections; i++) {
        conns[i].window_began = now_ns();
        if (send_window(&conns[i]) < 0) die("write");
    }
    struct epoll_event events[256];
    int open = connections;
    while (open > 0) {
        int n = epoll_wait(ep, events, 256, 1000);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int e = 0; e < n; e++) {
            struct conn *c = &conns[events[e].data.u32];
            if (c->fd < 0) continue;
            if (send_window(c) < 0) { failures++; close(c->fd); c->fd = -1; open--; continue; }
            for (;;) {
                ssize_t r = read(c->fd, c->in + c->in_len, sizeof c->in - c->in_len);
                if (r < 0 && errno == EAGAIN) break;
                if (r <= 0) { failures++; close(c->fd); c->fd = -1; open--; break; }
                size_t len = c->in_len + (size_t)r, start = 0;
                for (char *nl; (nl = memchr(c->in + start, '\n', len - start)); ) {
                    size_t end = (size_t)(nl - c->in);
                    /* An answer is {"jsonrpc":"2.0","id":1,"result":…; an error has "error" there. */
                    if (!echo && !memmem(c->in + start, end - start < 48 ? end - start : 48, "\"result\":", 9)) failures++;
                    start = end + 1;
                    if (++c->answered < depth) continue;
                    int64_t t = now_ns();
                    if (lat_len == lat_cap) {
                        lat_cap *= 2;
                        latencies = realloc(latencies, lat_cap * sizeof *latencies);
                        if (!latencies) die("realloc");
                    }
                    latencies[lat_len++] = t - c->window_began;
                    answered += depth;
                    c->answered = 0;
                    if (t >= deadline) {
                        close(c->fd);
                        c->fd = -1;
                        open--;
                        break;
                    }
                    c->window_began = t;
                    c->sent = 0;
                    if (send_window(c) < 0) { failures++; close(c->fd); c->fd = -1; open--; break; }
                }
                if (c->fd < 0) break;
                if (start == 0 && len == sizeof c->in) { fprintf(stderr, "petspot-load-c: an answer over %d bytes\n", BUF); return 1; }
                memmove(c->in, c->in + start, len - start);
                c->in_len = len - start;
            }
        }
    }
    double elapsed = (double)(now_ns() - began) / 1e9;
    printf("%s%s, connections: %d, depth: %d, seconds: %.1f\n", echo ? "echo of " : "", method, connections, depth, elapsed);
    printf("answered: %lld, failures: %lld\n", answered, failures);
    printf("throughput: %.0f req/s\n", (double)answered / elapsed);
    if (lat_len > 0) {
        qsort(latencies, lat_len, sizeof *latencies, cmp_i64);
#define PCT(p) ((double)latencies[(size_t)((double)lat_len * (p)) < lat_len ? (size_t)((double)lat_len * (p)) : lat_len - 1] / 1e6)
        printf("latency ms (per window of %d): p50 %.3f p99 %.3f max %.3f\n", depth, PCT(0.5), PCT(0.99), PCT(1.0));
    }
    return failures > 0;
}
