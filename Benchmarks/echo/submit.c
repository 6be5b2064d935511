/* Durable submits without a costly client: one epoll loop, one thread, every connection
 * non-blocking, as load.c is for flow.get. petspot-load spends a thread per connection on the
 * same two cores as the daemon; this spends one.
 *   cc -O2 -o petspot-submit-c Benchmarks/echo/submit.c
 *   ./petspot-submit-c SOCKET CONNECTIONS FLOWS
 * First, untimed, each connection takes FLOWS flows to their summary (flow.start, then the
 * seven update/continue steps in one write). Then every connection submits its flows one
 * at a time (flow.submit, one in flight per connection), all connections together: each
 * submit is timed from its send to its answer, which comes once the report is on disk.
 * Prints "submits/s" over the whole timed phase and the p50/p99/max of a submit. An answer
 * without "result" where it begins counts as a failure.
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

#define PROGRAM "petspot-submit-c"
#include "client.h"

#define BUF 65536
#define FLOW_ID 36

struct conn {
    int fd;
    int flows, next;        /* prepared, submitted so far */
    char (*ids)[FLOW_ID + 1];
    int64_t sent_at;
    size_t in_len;
    char in[BUF];
};

static void write_all(int fd, const char *data, size_t n) {
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, data + off, n - off);
        if (w < 0) die("write");
        off += (size_t)w;
    }
}

/* Blocking: reads `lines` answer lines into `answer` (NUL-terminated), for the untimed part. */
static void read_lines(int fd, int lines, char *answer, size_t cap) {
    size_t len = 0;
    int seen = 0;
    while (seen < lines) {
        ssize_t r = read(fd, answer + len, cap - 1 - len);
        if (r <= 0) { fprintf(stderr, "petspot-submit-c: the daemon closed the connection\n"); exit(1); }
        for (ssize_t i = 0; i < r; i++) if (answer[len + i] == '\n') seen++;
        len += (size_t)r;
        if (len >= cap - 1) { fprintf(stderr, "petspot-submit-c: answers too long\n"); exit(1); }
    }
    answer[len] = 0;
}

static const char *steps =
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"flow.update\",\"params\":{\"flowId\":\"%1$s\",\"values\":{\"chipNumber\":\"616 09 1234 5678 9\"}}}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"flow.continue\",\"params\":{\"flowId\":\"%1$s\"}}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"flow.update\",\"params\":{\"flowId\":\"%1$s\",\"values\":{\"photo\":{\"data\":"
    "\"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==\",\"filename\":\"rex.png\"}}}}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"flow.continue\",\"params\":{\"flowId\":\"%1$s\"}}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"flow.update\",\"params\":{\"flowId\":\"%1$s\",\"values\":{\"species\":\"dog\",\"race\":\"Beagle\","
    "\"gender\":\"male\",\"age\":\"4\",\"latitude\":\"52.2296756\",\"longitude\":\"21.0122287\"}}}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"flow.continue\",\"params\":{\"flowId\":\"%1$s\"}}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"flow.update\",\"params\":{\"flowId\":\"%1$s\",\"values\":{\"contactPhone\":\"+48 123 456 789\"}}}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"flow.continue\",\"params\":{\"flowId\":\"%1$s\"}}\n";

/* One flow taken to its summary; its id into `id`. */
static void prepare(int fd, char *id) {
    static char answer[BUF * 4];
    const char *start = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"flow.start\",\"params\":{\"locale\":\"en\"}}\n";
    write_all(fd, start, strlen(start));
    read_lines(fd, 1, answer, sizeof answer);
    char *at = strstr(answer, "\"flow\":{\"id\":\"");
    if (!at) { fprintf(stderr, "petspot-submit-c: flow.start answered %s", answer); exit(1); }
    memcpy(id, at + 14, FLOW_ID);
    id[FLOW_ID] = 0;
    char lines[4096];
    int n = snprintf(lines, sizeof lines, steps, id);
    write_all(fd, lines, (size_t)n);
    read_lines(fd, 8, answer, sizeof answer);
    /* An error object (a field's "error" is null or a string), or Continue refused. */
    if (strstr(answer, "\"error\":{") || strstr(answer, "\"accepted\":false")) {
        fprintf(stderr, "petspot-submit-c: a step was refused: %.400s\n", answer);
        exit(1);
    }
}

static void send_submit(struct conn *c) {
    char line[256];
    int n = snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"flow.submit\",\"params\":{\"flowId\":\"%s\"}}\n",
                     c->ids[c->next]);
    c->sent_at = now_ns();
    /* A line of under 200 bytes into an empty socket buffer: it goes whole or the daemon is gone. */
    if (write(c->fd, line, (size_t)n) != n) die("write flow.submit");
}

static int compare(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: petspot-submit-c SOCKET CONNECTIONS FLOWS\n");
        return 2;
    }
    const char *path = argv[1];
    int count = atoi(argv[2]), flows = atoi(argv[3]);
    if (count < 1 || flows < 1) { fprintf(stderr, "CONNECTIONS and FLOWS must be at least 1\n"); return 2; }
    struct conn *conns = calloc((size_t)count, sizeof *conns);
    if (!conns) die("calloc");
    for (int i = 0; i < count; i++) {
        conns[i].fd = connect_to(path);
        conns[i].flows = flows;
        conns[i].ids = calloc((size_t)flows, sizeof *conns[i].ids);
        if (!conns[i].ids) die("calloc");
        for (int f = 0; f < flows; f++) prepare(conns[i].fd, conns[i].ids[f]);
    }
    fprintf(stderr, "prepared %d flows on each of %d connections\n", flows, count);

    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) die("epoll_create1");
    for (int i = 0; i < count; i++) {
        fcntl(conns[i].fd, F_SETFL, fcntl(conns[i].fd, F_GETFL) | O_NONBLOCK);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &conns[i]};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev) < 0) die("epoll_ctl");
    }
    size_t total = (size_t)count * (size_t)flows, done = 0, failed = 0;
    int64_t *latencies = malloc(total * sizeof *latencies);
    if (!latencies) die("malloc");
    int64_t began = now_ns();
    for (int i = 0; i < count; i++) send_submit(&conns[i]);
    struct epoll_event events[256];
    while (done < total) {
        int n = epoll_wait(ep, events, 256, 30000);
        if (n < 0) { if (errno == EINTR) continue; die("epoll_wait"); }
        if (n == 0) { fprintf(stderr, "petspot-submit-c: no answer for 30 s\n"); return 1; }
        for (int e = 0; e < n; e++) {
            struct conn *c = events[e].data.ptr;
            for (;;) {
                ssize_t r = read(c->fd, c->in + c->in_len, BUF - c->in_len);
                if (r < 0) { if (errno == EAGAIN) break; die("read"); }
                if (r == 0) { fprintf(stderr, "petspot-submit-c: the daemon closed a connection\n"); return 1; }
                c->in_len += (size_t)r;
                char *line = c->in, *end;
                while ((end = memchr(line, '\n', c->in_len - (size_t)(line - c->in)))) {
                    int64_t at = now_ns();
                    if (!strstr(line, "\"result\"") || (size_t)(strstr(line, "\"result\"") - line) > 40) failed++;
                    latencies[done++] = at - c->sent_at;
                    line = end + 1;
                    if (++c->next < c->flows) send_submit(c);
                }
                size_t rest = c->in_len - (size_t)(line - c->in);
                memmove(c->in, line, rest);
                c->in_len = rest;
                if (c->in_len == BUF) { fprintf(stderr, "petspot-submit-c: an answer longer than %d bytes\n", BUF); return 1; }
            }
        }
    }
    double seconds = (double)(now_ns() - began) / 1e9;
    qsort(latencies, total, sizeof *latencies, compare);
    printf("%zu submits in %.2f s: %.0f submits/s; submit p50 %.2f ms, p99 %.2f ms, max %.2f ms; %zu failed\n", total, seconds,
           (double)total / seconds, latencies[total / 2] / 1e6, latencies[total * 99 / 100] / 1e6, latencies[total - 1] / 1e6, failed);
    return failed ? 1 : 0;
}
