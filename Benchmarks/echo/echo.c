/* A minimal NDJSON echo server over a Unix socket: one epoll loop, one thread, each line
 * written back as it came. The yardstick of Benchmarks/run-echo-ratio.sh: what a bare
 * server on this machine serves with the same load client and the same request lines.
 *   cc -O2 -o echo Benchmarks/echo/echo.c && ./echo /tmp/echo.sock
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define BUF 65536

struct conn {
    int fd;
    size_t in_len;              /* bytes read, not yet a whole line */
    char in[BUF];
    size_t out_len, out_off;    /* answers not yet written */
    char *out;
    size_t out_cap;
};

static void out_append(struct conn *c, const char *p, size_t n) {
    if (c->out_len + n > c->out_cap) {
        c->out_cap = (c->out_len + n) * 2;
        c->out = realloc(c->out, c->out_cap);
        if (!c->out) { perror("realloc"); exit(1); }
    }
    memcpy(c->out + c->out_len, p, n);
    c->out_len += n;
}

/* Writes what it can; returns -1 when the connection is gone. */
static int flush_out(struct conn *c) {
    while (c->out_off < c->out_len) {
        ssize_t w = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
        if (w < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
        c->out_off += (size_t)w;
    }
    c->out_len = c->out_off = 0;
    return 0;
}

static void close_conn(int ep, struct conn *c) {
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->out);
    free(c);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s SOCKET\n", argv[0]); return 2; }
    signal(SIGPIPE, SIG_IGN);
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    strncpy(addr.sun_path, argv[1], sizeof addr.sun_path - 1);
    unlink(argv[1]);
    if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 1024) < 0) { perror("bind/listen"); return 1; }
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    struct epoll_event events[256];
    for (;;) {
        int n = epoll_wait(ep, events, 256, -1);
        if (n < 0) { if (errno == EINTR) continue; perror("epoll_wait"); return 1; }
        for (int i = 0; i < n; i++) {
            struct conn *c = events[i].data.ptr;
            if (!c) {
                int fd;
                while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    c = calloc(1, sizeof *c);
                    c->fd = fd;
                    struct epoll_event cev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
                }
                continue;
            }
            int gone = 0, eof = 0;
            for (;;) {
                ssize_t r = read(c->fd, c->in + c->in_len, BUF - c->in_len);
                if (r == 0) { eof = 1; break; }
                if (r < 0) { if (errno != EAGAIN && errno != EWOULDBLOCK) gone = 1; break; }
                c->in_len += (size_t)r;
                /* Every whole line goes back as it came; a partial one waits for the rest. */
                char *start = c->in, *end = c->in + c->in_len, *nl;
                while ((nl = memchr(start, '\n', (size_t)(end - start)))) {
                    out_append(c, start, (size_t)(nl - start + 1));
                    start = nl + 1;
                }
                c->in_len = (size_t)(end - start);
                memmove(c->in, start, c->in_len);
                if (c->in_len == BUF) { gone = 1; break; } /* a line longer than the buffer */
            }
            if (!gone && flush_out(c) < 0) gone = 1;
            if (eof) gone = 1; /* what was read is answered (as far as the socket takes it) */
            if (!gone && c->out_len > 0) {
                /* The client is slow to read: wait until it can take more. */
                struct epoll_event wev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP, .data.ptr = c };
                epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &wev);
            } else if (!gone && (events[i].events & EPOLLOUT)) {
                struct epoll_event rev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
                epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &rev);
            }
            if (gone || (events[i].events & (EPOLLHUP | EPOLLERR))) close_conn(ep, c);
        }
    }
}
