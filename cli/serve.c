/* serve: the players' view over HTTP (serve.h). */
#define _GNU_SOURCE /* getaddrinfo, getrandom, pthread_condattr_setclock */
#include "cli/serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/output.h"

/* The page's own files, built in (cli/view/, by stdlib/embed.sh). */
static const struct {
    const char *name, *path, *text;
} view_files[] = {
#include "cli/view_files.inc"
};

/* The transcript's last lines a page shows. */
#define SERVE_LOG_LINES 40
/* A stream with nothing new says it is alive this often, so that a page
   knows its server is, and a client that vanished is found out. */
#define SERVE_PING_SECONDS 15
#define SERVE_MOST_CONNECTIONS 1024

struct serve {
    struct MHD_Daemon *daemon;
    char token[33]; /* "" on this machine only */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    char *snapshot; /* the players' view as JSON, one line */
    uint64_t version;
    bool stopping;
};

/* --- the snapshot: built on the REPL's thread ------------------------------------ */

/* The state's JSON, its line breaks (layout only: strings escape theirs)
   made spaces, so that an event is one line. */
static void put_state(void *user, const char *text)
{
    FILE *out = user;
    for (const char *p = text; *p; p++)
        fputc(*p == '\n' ? ' ' : *p, out);
}

/* The transcript's lines, counted (a first pass), then its last ones
   written as a JSON list (a second). */
typedef struct log_lines {
    FILE *out;
    size_t count, seen, from;
} log_lines;

static void count_line(void *user, const fray_line *l)
{
    (void)l;
    ((log_lines *)user)->count++;
}

static void put_line(void *user, const fray_line *l)
{
    log_lines *k = user;
    if (k->seen++ < k->from)
        return;
    if (k->seen > k->from + 1)
        fputs(", ", k->out);
    cli_json_string_to(k->out, l->text);
}

void serve_publish(serve *sv, fray *f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    bool ok = out != NULL, read = true;
    if (ok) {
        fputs("{\"state\": ", out);
        /* (an error reading it was said, as the library says errors) */
        read = fray_state_view(f, FRAY_VIEW_PLAYERS, put_state, out) == FRAY_OK;
        fputs(", \"log\": [", out);
        log_lines k = {.out = out};
        fray_transcript(f, FRAY_VIEW_PLAYERS, count_line, &k);
        k.from = k.count > SERVE_LOG_LINES ? k.count - SERVE_LOG_LINES : 0;
        fray_transcript(f, FRAY_VIEW_PLAYERS, put_line, &k);
        fputs("]}", out);
        ok = !ferror(out) && ok;
        ok = fclose(out) == 0 && ok;
    }
    if (!ok || !read) {
        free(text); /* open_memstream's buffer is libc's */
        fprintf(stderr, "fray repl: %sthe players' view is not updated\n", ok ? "" : "out of memory: ");
        return;
    }
    pthread_mutex_lock(&sv->lock);
    if (!sv->snapshot || strcmp(sv->snapshot, text)) { /* a page hears only of a change */
        free(sv->snapshot);
        sv->snapshot = text;
        text = NULL;
        sv->version++;
        pthread_cond_broadcast(&sv->changed);
    }
    pthread_mutex_unlock(&sv->lock);
    free(text);
}

/* --- the streams: on the server's threads ------------------------------------------ */

typedef struct stream {
    serve *sv;
    uint64_t sent; /* the version last sent */
    char *pending; /* what is left to send of the last event */
    size_t len, off;
} stream;

/* The next event: the view when it changed, else a ping after a while;
   false when the server stops. Called with the lock held. */
static bool next_event(stream *st)
{
    serve *sv = st->sv;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += SERVE_PING_SECONDS;
    while (!sv->stopping && sv->version == st->sent)
        if (pthread_cond_timedwait(&sv->changed, &sv->lock, &until) == ETIMEDOUT)
            break;
    if (sv->stopping)
        return false;
    free(st->pending);
    st->pending = NULL;
    st->len = st->off = 0;
    if (sv->version == st->sent) {
        st->pending = strdup(": still here\n\n");
    } else {
        size_t n = strlen(sv->snapshot) + 16;
        st->pending = malloc(n);
        if (st->pending)
            snprintf(st->pending, n, "data: %s\n\n", sv->snapshot);
        st->sent = sv->version;
    }
    if (!st->pending)
        return false;
    st->len = strlen(st->pending);
    return true;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    stream *st = cls;
    if (st->off == st->len) {
        pthread_mutex_lock(&st->sv->lock);
        bool more = next_event(st);
        pthread_mutex_unlock(&st->sv->lock);
        if (!more)
            return MHD_CONTENT_READER_END_OF_STREAM;
    }
    size_t n = st->len - st->off < max ? st->len - st->off : max;
    memcpy(buf, st->pending + st->off, n);
    st->off += n;
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    stream *st = cls;
    free(st->pending);
    free(st);
}

/* --- requests ------------------------------------------------------------------------ */

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *type, const char *text,
                                 enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, mode);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    /* the page runs only its own files, keeps nothing, and tells no other
       site where it was (its address may hold the token) */
    MHD_add_response_header(r, "Content-Security-Policy", "default-src 'self'");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, "Allow", "GET, HEAD");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

/* Whether the request carries the token (or none is needed), compared in
   a time that does not tell how much of it was right. */
static bool token_given(const serve *sv, struct MHD_Connection *c)
{
    if (!sv->token[0])
        return true;
    const char *t = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "t");
    if (!t || strlen(t) != strlen(sv->token))
        return false;
    unsigned diff = 0;
    for (size_t i = 0; t[i]; i++)
        diff |= (unsigned)(t[i] ^ sv->token[i]);
    return diff == 0;
}

/* The page, with the view as it is now written into it, so that the page is
   drawn before its stream opens. Inside a script element only "</" could end
   it early; JSON has '<' only inside its strings, where "\u003c" says the
   same. */
static const char FIRST_VIEW_AT[] = "<script id=\"first-view\" type=\"application/json\">";

static enum MHD_Result send_page(serve *sv, struct MHD_Connection *c, const char *page)
{
    const char *at = strstr(page, FIRST_VIEW_AT);
    if (!at)
        return send_text(c, MHD_HTTP_OK, "text/html; charset=utf-8", page, MHD_RESPMEM_PERSISTENT);
    at += strlen(FIRST_VIEW_AT);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return MHD_NO;
    fwrite(page, 1, (size_t)(at - page), out);
    pthread_mutex_lock(&sv->lock);
    for (const char *p = sv->snapshot ? sv->snapshot : ""; *p; p++)
        if (*p == '<')
            fputs("\\u003c", out);
        else
            fputc(*p, out);
    pthread_mutex_unlock(&sv->lock);
    fputs(at, out);
    bool ok = !ferror(out);
    ok = fclose(out) == 0 && ok;
    enum MHD_Result sent =
        ok ? send_text(c, MHD_HTTP_OK, "text/html; charset=utf-8", text, MHD_RESPMEM_MUST_COPY) : MHD_NO;
    free(text); /* open_memstream's buffer is libc's */
    return sent;
}

static const char *type_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot && !strcmp(dot, ".js"))
        return "text/javascript; charset=utf-8";
    if (dot && !strcmp(dot, ".css"))
        return "text/css; charset=utf-8";
    return "text/html; charset=utf-8";
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size, void **req)
{
    (void)version, (void)upload_data, (void)upload_data_size, (void)req;
    serve *sv = cls;
    if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
        return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
                         "the players' view takes no commands: it is only read\n", MHD_RESPMEM_PERSISTENT);
    /* the page's script and style hold nothing of the session: a browser
       asks for them without the token */
    bool asset = !strcmp(url, "/view.js") || !strcmp(url, "/view.css");
    if (!asset && !token_given(sv, c))
        return send_text(c, MHD_HTTP_FORBIDDEN, "text/plain; charset=utf-8",
                         "this address needs the token the GM's screen gives (?t=...)\n", MHD_RESPMEM_PERSISTENT);
    if (!strcmp(url, "/events")) {
        stream *st = calloc(1, sizeof *st);
        if (!st)
            return MHD_NO;
        st->sv = sv;
        struct MHD_Response *r =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, st, stream_free);
        if (!r) {
            free(st);
            return MHD_NO;
        }
        MHD_add_response_header(r, "Content-Type", "text/event-stream; charset=utf-8");
        MHD_add_response_header(r, "Cache-Control", "no-store");
        MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
        enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ok;
    }
    if (!strcmp(url, "/state.json")) {
        pthread_mutex_lock(&sv->lock);
        enum MHD_Result ok =
            send_text(c, MHD_HTTP_OK, "application/json", sv->snapshot ? sv->snapshot : "{}", MHD_RESPMEM_MUST_COPY);
        pthread_mutex_unlock(&sv->lock);
        return ok;
    }
    const char *name = !strcmp(url, "/") ? "index.html" : url + 1;
    for (size_t i = 0; i < sizeof view_files / sizeof view_files[0]; i++)
        if (!strcmp(view_files[i].name, name) && !strcmp(name, "index.html"))
            return send_page(sv, c, view_files[i].text);
        else if (!strcmp(view_files[i].name, name))
            return send_text(c, MHD_HTTP_OK, type_of(name), view_files[i].text, MHD_RESPMEM_PERSISTENT);
    return send_text(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", "not part of the players' view\n",
                     MHD_RESPMEM_PERSISTENT);
}

/* --- starting and stopping -------------------------------------------------------- */

/* The address where names: its host (127.0.0.1 when only a port is
   given) resolved into addr; false after saying why. */
static bool parse_where(const char *where, struct sockaddr_storage *addr, char *host, size_t cap, unsigned *port)
{
    const char *colon = strrchr(where, ':');
    const char *digits = colon ? colon + 1 : where;
    char *end;
    unsigned long p = strtoul(digits, &end, 10);
    if (!*digits || *end || p > 65535 || digits[0] == '-' || digits[0] == '+') {
        fprintf(stderr, "fray repl: --serve takes PORT, HOST:PORT or [IPV6]:PORT, not '%s'\n", where);
        return false;
    }
    *port = (unsigned)p;
    size_t n = colon ? (size_t)(colon - where) : 0;
    if (n >= 2 && where[0] == '[' && where[n - 1] == ']')
        where++, n -= 2;
    if (!n)
        snprintf(host, cap, "127.0.0.1");
    else if (n < cap)
        snprintf(host, cap, "%.*s", (int)n, where);
    else {
        fprintf(stderr, "fray repl: --serve: the host name is too long\n");
        return false;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *found = NULL;
    int e = getaddrinfo(host, NULL, &hints, &found);
    if (e) {
        fprintf(stderr, "fray repl: --serve: cannot find '%s': %s\n", host, gai_strerror(e));
        return false;
    }
    memset(addr, 0, sizeof *addr);
    memcpy(addr, found->ai_addr, found->ai_addrlen);
    freeaddrinfo(found);
    if (addr->ss_family == AF_INET)
        ((struct sockaddr_in *)addr)->sin_port = htons((uint16_t)*port);
    else
        ((struct sockaddr_in6 *)addr)->sin6_port = htons((uint16_t)*port);
    return true;
}

static bool on_this_machine(const struct sockaddr_storage *addr)
{
    if (addr->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)addr)->sin_addr.s_addr) >> 24) == 127;
    return addr->ss_family == AF_INET6 &&
           !memcmp(&((const struct sockaddr_in6 *)addr)->sin6_addr, &in6addr_loopback, sizeof in6addr_loopback);
}

/* Whether addr is every address of the machine (0.0.0.0, "0", ::): the
   page is then reached by the machine's name. */
static bool any_address(const struct sockaddr_storage *addr)
{
    if (addr->ss_family == AF_INET)
        return ((const struct sockaddr_in *)addr)->sin_addr.s_addr == htonl(INADDR_ANY);
    return addr->ss_family == AF_INET6 &&
           !memcmp(&((const struct sockaddr_in6 *)addr)->sin6_addr, &in6addr_any, sizeof in6addr_any);
}

static bool make_token(char *out)
{
    unsigned char bytes[16];
    if (getrandom(bytes, sizeof bytes, 0) != (ssize_t)sizeof bytes)
        return false;
    for (size_t i = 0; i < sizeof bytes; i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
    return true;
}

serve *serve_start(const char *where, char **url)
{
    struct sockaddr_storage addr;
    char host[256];
    unsigned port;
    if (!parse_where(where, &addr, host, sizeof host, &port))
        return NULL;
    serve *sv = calloc(1, sizeof *sv);
    if (!sv) {
        fprintf(stderr, "fray repl: out of memory\n");
        return NULL;
    }
    if (!on_this_machine(&addr) && !make_token(sv->token)) {
        fprintf(stderr, "fray repl: --serve: no random token to be had: %s\n", strerror(errno));
        free(sv);
        return NULL;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sv->changed, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&sv->lock, NULL);
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
    if (addr.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    sv->daemon =
        MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, answer, sv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                         MHD_OPTION_CONNECTION_LIMIT, (unsigned)SERVE_MOST_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
                         (unsigned)120, MHD_OPTION_THREAD_STACK_SIZE, (size_t)(256 * 1024), MHD_OPTION_END);
    if (!sv->daemon) {
        fprintf(stderr, "fray repl: --serve: cannot serve at %s (the port in use, or not this machine's address?)\n",
                where);
        serve_stop(sv);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(sv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (info)
        port = info->port;
    char shown[300];
    if (any_address(&addr) && gethostname(shown, sizeof shown) == 0)
        shown[sizeof shown - 1] = '\0';
    else
        snprintf(shown, sizeof shown, strchr(host, ':') ? "[%s]" : "%s", host);
    *url = cli_printf("http://%s:%u/%s%s", shown, port, sv->token[0] ? "?t=" : "", sv->token);
    if (!*url) {
        fprintf(stderr, "fray repl: out of memory\n");
        serve_stop(sv);
        return NULL;
    }
    return sv;
}

void serve_stop(serve *sv)
{
    if (!sv)
        return;
    pthread_mutex_lock(&sv->lock);
    sv->stopping = true;
    pthread_cond_broadcast(&sv->changed);
    pthread_mutex_unlock(&sv->lock);
    if (sv->daemon)
        MHD_stop_daemon(sv->daemon);
    pthread_cond_destroy(&sv->changed);
    pthread_mutex_destroy(&sv->lock);
    free(sv->snapshot);
    free(sv);
}
