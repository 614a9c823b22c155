/*
 * tlsload: the HTTPS load generator of Benchmarks/tls.
 *
 * wrk and h2load cannot send a CONNECT to an HTTP proxy before their TLS handshake, so this
 * small client does what they do (HTTP/1.1 GET requests over keep-alive or one-shot TLS
 * connections, latency percentiles) and can go through a forward proxy: TCP to the proxy,
 * `CONNECT HOST:PORT`, wait for the 200, then TLS with the origin's name in SNI, verified against
 * a CA file (the origin's CA when direct, the proxy's CA when it intercepts).
 *
 * Design: like wrk, a few threads (one per core at most), each running an epoll loop over its
 * share of non-blocking connections, level-triggered, with one OpenSSL context per thread. No
 * pipelining: each connection has one request in flight. TLS sessions are never resumed, so
 * every new connection pays a full handshake (the worst case, and the same for every row).
 *
 * At the end of the run no new request or connection starts; those in flight finish (for up to
 * 3 s, not counted) and the connections close with a close_notify, so the other side sees no
 * connection cut halfway through a handshake or a response.
 *
 * Latency: with keep-alive, from the request's write to the response's last byte (as wrk);
 * with a connection per request (--close), from socket() to the response's last byte, so the
 * TCP connect, the CONNECT and the TLS handshake are in it.
 *
 * --names FILE: one connection per line of FILE, one after the other, each with that line as
 * its SNI name (and verified host name, and Host header with the origin's port), a request each; prints `NAME LATENCY_US` per line. This
 * is how Benchmarks/tls times a proxy minting a certificate for a new name against one it has
 * cached.
 *
 * Build: cc -O2 -o tlsload tlsload.c -lssl -lcrypto -lpthread
 * Output: one line `TLSLOAD requests=N duration_us=N p50_us=N ...` on stdout; the first few
 * errors, with OpenSSL's reason, on stderr.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum state { S_TCP, S_PROXY_WRITE, S_PROXY_READ, S_HANDSHAKE, S_WRITE, S_READ };
enum error_kind { E_CONNECT, E_PROXY, E_TLS, E_READ, E_STATUS, E_TIMEOUT, E_COUNT };
static const char *error_names[E_COUNT] = {"connect", "proxy", "tls", "read", "status", "timeout"};

struct options {
    struct sockaddr_in address;  /* where TCP goes: the origin, or the proxy */
    const char *connect_target;  /* HOST:PORT to CONNECT to through the proxy; NULL = direct */
    const char *sni;             /* SNI and verified host name */
    const char *ca;              /* trusted CA file */
    const char *path;
    const char *host_header;
    int connections, threads, close_mode;
    long expect_bytes;           /* the body's length, or -1 for any */
    double duration, timeout;
    char **names;                /* --names: one connection per name, in order */
    size_t name_count;
};

static struct options opt;

struct worker;

struct conn {
    struct worker *w;
    int fd;
    SSL *ssl;
    enum state st;
    uint32_t interest;
    uint64_t started_ns;         /* latency origin */
    uint64_t deadline_ns;        /* request timeout */
    const char *sni;
    size_t name_index;
    char head[8192];             /* response (or CONNECT answer) head */
    size_t have;
    int head_done;
    long body_left;
    int server_closes;
    size_t wrote;
};

struct worker {
    int id;
    int epfd;
    SSL_CTX *ctx;
    struct conn *conns;
    int count;
    uint32_t *lat;
    size_t n, cap;
    uint64_t errors[E_COUNT];
    uint64_t opened;
    uint64_t end_ns;
    int draining;                /* past end_ns: finish what is in flight, start nothing new */
    int stopping;
    size_t next_name;
};

#define DRAIN_NS 3000000000ull

static char request[1024];
static size_t request_len;
static int origin_port; /* for the Host header of --names requests */
static char connect_request[512];
static size_t connect_len;
static pthread_barrier_t start_barrier;
static uint64_t start_ns;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static int errors_reported;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("tlsload: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* The first few errors go to stderr with their reason, so a failing run says why. */
static void report_error(struct conn *c, enum error_kind kind, const char *what) {
    c->w->errors[kind]++;
    char ossl[256] = "";
    unsigned long e = ERR_get_error();
    if (e) ERR_error_string_n(e, ossl, sizeof ossl);
    ERR_clear_error();
    pthread_mutex_lock(&report_lock);
    if (errors_reported < 5) {
        errors_reported++;
        int len = (int)strcspn(what, "\r\n"); /* a response head: its status line only */
        fprintf(stderr, "tlsload: %s error (sni %s, state %d): %.*s%s%s%s\n", error_names[kind], c->sni,
                (int)c->st, len, what, ossl[0] ? " [" : "", ossl, ossl[0] ? "]" : "");
    }
    pthread_mutex_unlock(&report_lock);
}

static void record(struct worker *w, uint64_t ns) {
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 65536;
        w->lat = realloc(w->lat, w->cap * sizeof *w->lat);
        if (!w->lat) die("out of memory");
    }
    uint64_t us = ns / 1000;
    w->lat[w->n++] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

static void set_interest(struct conn *c, uint32_t events) {
    if (c->interest == events) return;
    struct epoll_event ev = {.events = events, .data.ptr = c};
    if (epoll_ctl(c->w->epfd, EPOLL_CTL_MOD, c->fd, &ev) != 0) die("epoll_ctl: %s", strerror(errno));
    c->interest = events;
}

static void close_conn(struct conn *c) {
    if (c->ssl) {
        SSL_shutdown(c->ssl); /* sends close_notify; we do not wait for the peer's */
        SSL_free(c->ssl);
        c->ssl = NULL;
    }
    if (c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
}

static int open_conn(struct conn *c);
static void build_request(const char *host, int port);

/* After an error: count it, then start over on a new connection (unless the run is over). */
static void fail(struct conn *c, enum error_kind kind, const char *what) {
    report_error(c, kind, what);
    close_conn(c);
    if (opt.names) {
        /* --names prints a line per name, failed or not. */
        printf("%s ERROR\n", c->sni);
    }
    open_conn(c);
}

/* Opens a new connection (TCP connect started); 0 when the run is over. */
static int open_conn(struct conn *c) {
    struct worker *w = c->w;
    if (w->stopping || w->draining) return 0;
    if (opt.names) {
        if (w->next_name >= opt.name_count) {
            w->stopping = 1;
            return 0;
        }
        c->name_index = w->next_name++;
        c->sni = opt.names[c->name_index];
        build_request(c->sni, origin_port); /* one thread, one connection: no race */
    }
    c->started_ns = now_ns();
    c->deadline_ns = c->started_ns + (uint64_t)(opt.timeout * 1e9);
    c->have = 0;
    c->head_done = 0;
    c->wrote = 0;
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) die("socket: %s", strerror(errno));
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    w->opened++;
    c->interest = EPOLLOUT;
    struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = c};
    if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) die("epoll_ctl add: %s", strerror(errno));
    c->st = S_TCP;
    if (connect(c->fd, (struct sockaddr *)&opt.address, sizeof opt.address) != 0 && errno != EINPROGRESS) {
        report_error(c, E_CONNECT, strerror(errno));
        close_conn(c);
        return 0; /* the loop's timeout check retries it */
    }
    return 1;
}

static void build_request(const char *host, int port) {
    char authority[600];
    if (port) snprintf(authority, sizeof authority, "%s:%d", host, port);
    else snprintf(authority, sizeof authority, "%s", host);
    int n = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", opt.path, authority,
                     opt.close_mode ? "Connection: close\r\n" : "");
    if (n < 0 || (size_t)n >= sizeof request) die("request too long");
    request_len = (size_t)n;
}

static int start_tls(struct conn *c) {
    c->ssl = SSL_new(c->w->ctx);
    if (!c->ssl) return 0;
    SSL_set_fd(c->ssl, c->fd);
    SSL_set_tlsext_host_name(c->ssl, c->sni);
    SSL_set1_host(c->ssl, c->sni);
    SSL_set_connect_state(c->ssl);
    c->st = S_HANDSHAKE;
    return 1;
}

/* Parses a complete head in c->head[0..end): status and framing. 0 if unusable. */
static int parse_head(struct conn *c, size_t end, int *status) {
    if (end < 12 || strncmp(c->head, "HTTP/1.", 7) != 0) return 0;
    *status = atoi(c->head + 9);
    c->body_left = -1;
    c->server_closes = 0;
    char *line = memchr(c->head, '\n', end);
    while (line && (size_t)(line - c->head) < end) {
        line++;
        if (strncasecmp(line, "content-length:", 15) == 0) c->body_left = atol(line + 15);
        else if (strncasecmp(line, "connection:", 11) == 0) {
            const char *v = line + 11;
            while (*v == ' ') v++;
            if (strncasecmp(v, "close", 5) == 0) c->server_closes = 1;
        } else if (strncasecmp(line, "transfer-encoding:", 18) == 0) return 0;
        line = memchr(line, '\n', end - (size_t)(line - c->head));
    }
    return c->body_left >= 0;
}

static void response_done(struct conn *c) {
    struct worker *w = c->w;
    uint64_t t = now_ns();
    if (t <= w->end_ns || opt.names) record(w, t - c->started_ns);
    if (opt.names) printf("%s %llu\n", c->sni, (unsigned long long)((t - c->started_ns) / 1000));
    if (t > w->end_ns) w->draining = 1;
    if (w->draining || opt.close_mode || c->server_closes) {
        close_conn(c);
        open_conn(c);
    } else {
        c->st = S_WRITE;
        c->wrote = 0;
    }
}

/* Moves the connection on as far as it goes without blocking. */
static void drive(struct conn *c, uint32_t events) {
    char scratch[16384];
    for (;;) {
        if (c->fd < 0) return;
        switch (c->st) {
        case S_TCP: {
            if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
            int err = 0;
            socklen_t len = sizeof err;
            getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
            if (err) return fail(c, E_CONNECT, strerror(err));
            if (opt.connect_target) {
                c->st = S_PROXY_WRITE;
            } else if (!start_tls(c)) {
                return fail(c, E_TLS, "SSL_new");
            }
            break;
        }
        case S_PROXY_WRITE: {
            ssize_t n = send(c->fd, connect_request + c->wrote, connect_len - c->wrote, MSG_NOSIGNAL);
            if (n < 0) {
                if (errno == EAGAIN) return set_interest(c, EPOLLOUT);
                return fail(c, E_PROXY, strerror(errno));
            }
            c->wrote += (size_t)n;
            if (c->wrote == connect_len) {
                c->st = S_PROXY_READ;
                c->have = 0;
            }
            break;
        }
        case S_PROXY_READ: {
            ssize_t n = recv(c->fd, c->head + c->have, sizeof c->head - 1 - c->have, 0);
            if (n < 0) {
                if (errno == EAGAIN) return set_interest(c, EPOLLIN);
                return fail(c, E_PROXY, strerror(errno));
            }
            if (n == 0) return fail(c, E_PROXY, "proxy closed before answering CONNECT");
            c->have += (size_t)n;
            c->head[c->have] = 0;
            char *end = memmem(c->head, c->have, "\r\n\r\n", 4);
            if (!end) {
                if (c->have == sizeof c->head - 1) return fail(c, E_PROXY, "CONNECT answer too long");
                break;
            }
            if (strncmp(c->head, "HTTP/1.", 7) != 0 || atoi(c->head + 9) != 200)
                return fail(c, E_PROXY, "CONNECT not answered 200");
            if ((size_t)(end + 4 - c->head) != c->have) return fail(c, E_PROXY, "bytes after the CONNECT answer");
            c->have = 0;
            if (!start_tls(c)) return fail(c, E_TLS, "SSL_new");
            break;
        }
        case S_HANDSHAKE: {
            int r = SSL_do_handshake(c->ssl);
            if (r == 1) {
                c->st = S_WRITE;
                c->wrote = 0;
                break;
            }
            int e = SSL_get_error(c->ssl, r);
            if (e == SSL_ERROR_WANT_READ) return set_interest(c, EPOLLIN);
            if (e == SSL_ERROR_WANT_WRITE) return set_interest(c, EPOLLOUT);
            long v = SSL_get_verify_result(c->ssl);
            return fail(c, E_TLS, v != X509_V_OK ? X509_verify_cert_error_string(v) : "handshake failed");
        }
        case S_WRITE: {
            if (c->wrote == 0 && !opt.close_mode) {
                /* keep-alive: latency from the request's write, as wrk */
                c->started_ns = now_ns();
                c->deadline_ns = c->started_ns + (uint64_t)(opt.timeout * 1e9);
            }
            int r = SSL_write(c->ssl, request, (int)request_len);
            if (r <= 0) {
                c->wrote = 1; /* a retry must not reset the clock */
                int e = SSL_get_error(c->ssl, r);
                if (e == SSL_ERROR_WANT_READ) return set_interest(c, EPOLLIN);
                if (e == SSL_ERROR_WANT_WRITE) return set_interest(c, EPOLLOUT);
                return fail(c, E_READ, "SSL_write failed");
            }
            c->st = S_READ;
            c->have = 0;
            c->head_done = 0;
            break;
        }
        case S_READ: {
            char *into = c->head_done ? scratch : c->head + c->have;
            size_t room = c->head_done ? sizeof scratch : sizeof c->head - 1 - c->have;
            if (room == 0) return fail(c, E_READ, "response head too long");
            int r = SSL_read(c->ssl, into, (int)room);
            if (r <= 0) {
                int e = SSL_get_error(c->ssl, r);
                if (e == SSL_ERROR_WANT_READ) return set_interest(c, EPOLLIN);
                if (e == SSL_ERROR_WANT_WRITE) return set_interest(c, EPOLLOUT);
                if (e == SSL_ERROR_ZERO_RETURN) return fail(c, E_READ, "closed (close_notify) before the response ended");
                return fail(c, E_READ, "connection failed or closed before the response ended");
            }
            if (!c->head_done) {
                c->have += (size_t)r;
                c->head[c->have] = 0;
                char *end = memmem(c->head, c->have, "\r\n\r\n", 4);
                if (!end) break;
                size_t head_len = (size_t)(end + 4 - c->head);
                int status = 0;
                if (!parse_head(c, head_len, &status)) return fail(c, E_READ, "response without Content-Length");
                if (status != 200) return fail(c, E_STATUS, c->head);
                if (opt.expect_bytes >= 0 && c->body_left != opt.expect_bytes)
                    return fail(c, E_STATUS, "unexpected Content-Length");
                c->head_done = 1;
                c->body_left -= (long)(c->have - head_len);
            } else {
                c->body_left -= r;
            }
            if (c->body_left < 0) return fail(c, E_READ, "more bytes than Content-Length");
            if (c->body_left == 0) {
                response_done(c);
                if (c->fd < 0) return;
                events = 0;
            }
            break;
        }
        }
    }
}

static void *run_worker(void *arg) {
    struct worker *w = arg;
    w->ctx = SSL_CTX_new(TLS_client_method());
    if (!w->ctx) die("SSL_CTX_new failed");
    SSL_CTX_set_verify(w->ctx, SSL_VERIFY_PEER, NULL);
    if (SSL_CTX_load_verify_locations(w->ctx, opt.ca, NULL) != 1) die("cannot load CA file %s", opt.ca);
    SSL_CTX_set_session_cache_mode(w->ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(w->ctx, SSL_OP_NO_TICKET);
    static const unsigned char alpn[] = "\x08http/1.1";
    SSL_CTX_set_alpn_protos(w->ctx, alpn, sizeof alpn - 1);
    w->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (w->epfd < 0) die("epoll_create1: %s", strerror(errno));

    pthread_barrier_wait(&start_barrier);
    w->end_ns = opt.names ? UINT64_MAX : start_ns + (uint64_t)(opt.duration * 1e9);
    for (int i = 0; i < w->count; i++) {
        struct conn *c = &w->conns[i];
        c->w = w;
        c->fd = -1;
        c->sni = opt.sni;
        open_conn(c);
    }
    struct epoll_event events[256];
    uint64_t last_check = now_ns();
    while (!w->stopping) {
        int n = epoll_wait(w->epfd, events, 256, 50);
        if (n < 0 && errno != EINTR) die("epoll_wait: %s", strerror(errno));
        for (int i = 0; i < n; i++) drive(events[i].data.ptr, events[i].events);
        uint64_t t = now_ns();
        if (t > w->end_ns) w->draining = 1;
        if (w->draining) {
            /* Let the connections in flight finish (uncounted) rather than cutting them, so the
             * server or proxy sees only complete exchanges; give up after DRAIN_NS. */
            int open = 0;
            for (int i = 0; i < w->count; i++) open += w->conns[i].fd >= 0;
            if (!open || t > w->end_ns + DRAIN_NS) w->stopping = 1;
        }
        if (t - last_check > 50000000u) {
            last_check = t;
            for (int i = 0; i < w->count && !w->stopping; i++) {
                struct conn *c = &w->conns[i];
                if (c->fd < 0) open_conn(c); /* a connect that failed at once */
                else if (t > c->deadline_ns) fail(c, E_TIMEOUT, "no answer within the timeout");
            }
        }
    }
    for (int i = 0; i < w->count; i++) close_conn(&w->conns[i]);
    close(w->epfd);
    SSL_CTX_free(w->ctx);
    return NULL;
}

static int compare_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void parse_address(const char *text, struct sockaddr_in *out) {
    char host[256];
    const char *colon = strrchr(text, ':');
    if (!colon || (size_t)(colon - text) >= sizeof host) die("expected HOST:PORT, not %s", text);
    memcpy(host, text, (size_t)(colon - text));
    host[colon - text] = 0;
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons((uint16_t)atoi(colon + 1));
    if (inet_pton(AF_INET, host, &out->sin_addr) != 1) die("expected an IPv4 address, not %s", host);
}

static void load_names(const char *file) {
    FILE *f = fopen(file, "r");
    if (!f) die("cannot read %s", file);
    char line[512];
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) continue;
        if (opt.name_count == cap) {
            cap = cap ? cap * 2 : 256;
            opt.names = realloc(opt.names, cap * sizeof *opt.names);
        }
        opt.names[opt.name_count++] = strdup(line);
    }
    fclose(f);
    if (!opt.name_count) die("%s names no host", file);
}

static void usage(void) {
    fputs("usage: tlsload --connect IP:PORT [--proxy-connect HOST:PORT] --sni NAME --ca FILE\n"
          "               [--path /x] [--host HOSTHEADER] [-c CONNS] [-t THREADS] [-d SECONDS]\n"
          "               [--close] [--timeout SECONDS] [--names FILE] [--expect-bytes N]\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv) {
    const char *connect_to = NULL, *names_file = NULL;
    opt.path = "/";
    opt.connections = 1;
    opt.threads = 1;
    opt.duration = 10;
    opt.timeout = 5;
    opt.expect_bytes = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--close")) { opt.close_mode = 1; continue; }
        if (!v) usage();
        i++;
        if (!strcmp(a, "--connect")) connect_to = v;
        else if (!strcmp(a, "--proxy-connect")) opt.connect_target = v;
        else if (!strcmp(a, "--sni")) opt.sni = v;
        else if (!strcmp(a, "--ca")) opt.ca = v;
        else if (!strcmp(a, "--path")) opt.path = v;
        else if (!strcmp(a, "--host")) opt.host_header = v;
        else if (!strcmp(a, "-c")) opt.connections = atoi(v);
        else if (!strcmp(a, "-t")) opt.threads = atoi(v);
        else if (!strcmp(a, "-d")) opt.duration = atof(v);
        else if (!strcmp(a, "--timeout")) opt.timeout = atof(v);
        else if (!strcmp(a, "--names")) names_file = v;
        else if (!strcmp(a, "--expect-bytes")) opt.expect_bytes = atol(v);
        else usage();
    }
    if (!connect_to || !opt.ca || (!opt.sni && !names_file)) usage();
    if (opt.connections < 1 || opt.threads < 1 || opt.threads > opt.connections) die("need 1 <= threads <= connections");
    parse_address(connect_to, &opt.address);
    if (names_file) {
        load_names(names_file);
        opt.connections = opt.threads = 1;
        opt.close_mode = 1;
        setvbuf(stdout, NULL, _IOLBF, 0);
    }
    if (!opt.sni) opt.sni = opt.names[0];
    const char *target = opt.connect_target ? opt.connect_target : connect_to;
    origin_port = atoi(strrchr(target, ':') + 1);
    if (opt.host_header) build_request(opt.host_header, 0);
    else build_request(opt.sni, origin_port);
    if (opt.connect_target)
        connect_len = (size_t)snprintf(connect_request, sizeof connect_request,
                                       "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", opt.connect_target, opt.connect_target);
    signal(SIGPIPE, SIG_IGN);

    struct worker *workers = calloc((size_t)opt.threads, sizeof *workers);
    pthread_t *threads = calloc((size_t)opt.threads, sizeof *threads);
    pthread_barrier_init(&start_barrier, NULL, (unsigned)opt.threads + 1);
    for (int t = 0; t < opt.threads; t++) {
        struct worker *w = &workers[t];
        w->id = t;
        w->count = opt.connections / opt.threads + (t < opt.connections % opt.threads);
        w->conns = calloc((size_t)w->count, sizeof *w->conns);
        pthread_create(&threads[t], NULL, run_worker, w);
    }
    start_ns = now_ns();
    pthread_barrier_wait(&start_barrier);
    for (int t = 0; t < opt.threads; t++) pthread_join(threads[t], NULL);
    uint64_t elapsed = now_ns() - start_ns;
    if (!opt.names) elapsed = (uint64_t)(opt.duration * 1e9);

    size_t total = 0;
    uint64_t errors[E_COUNT] = {0}, opened = 0;
    for (int t = 0; t < opt.threads; t++) {
        total += workers[t].n;
        opened += workers[t].opened;
        for (int e = 0; e < E_COUNT; e++) errors[e] += workers[t].errors[e];
    }
    uint32_t *all = malloc((total ? total : 1) * sizeof *all);
    size_t k = 0;
    double sum = 0;
    for (int t = 0; t < opt.threads; t++) {
        memcpy(all + k, workers[t].lat, workers[t].n * sizeof *all);
        k += workers[t].n;
    }
    for (size_t i = 0; i < total; i++) sum += all[i];
    qsort(all, total, sizeof *all, compare_u32);
#define PCT(p) (total ? all[(size_t)((double)(total - 1) * (p))] : 0)
    printf("TLSLOAD requests=%zu duration_us=%llu p50_us=%u p90_us=%u p99_us=%u max_us=%u mean_us=%.1f opened=%llu",
           total, (unsigned long long)(elapsed / 1000), PCT(0.50), PCT(0.90), PCT(0.99), total ? all[total - 1] : 0,
           total ? sum / (double)total : 0.0, (unsigned long long)opened);
    for (int e = 0; e < E_COUNT; e++) printf(" err_%s=%llu", error_names[e], (unsigned long long)errors[e]);
    printf("\n");
    return 0;
}
