/* ptyrun: drives a program through a pseudo-terminal, for the tests of
 * what only a terminal shows (completion, history, Ctrl-C, prompts).
 *
 * Usage: ptyrun SCRIPT PROGRAM [ARG]...
 *
 * SCRIPT holds one step per line (blank lines and lines starting with '#'
 * are skipped):
 *   send TEXT       type TEXT; C escapes: \r \n \t \e \\ \xHH (\x03 is Ctrl-C)
 *   expect TEXT     wait until the output after the last match holds TEXT
 *   reject TEXT     fail if the output after the last match holds TEXT
 *                   (both with the escapes of send)
 *   exit N          wait for the program to end with status N
 *   patience N      let each later wait take up to N seconds
 *   columns N       make the terminal N columns wide (200 at the start)
 *   never TEXT      fail if TEXT shows anywhere in the output from here
 *                   to the end (escapes of send): what a whole session
 *                   must never print, such as a diagnostic located in a
 *                   rules file
 * With PTYRUN_TRANSCRIPT=FILE in the environment, everything the program
 * writes is copied to FILE, to read the session as the terminal showed it.
 * Each wait gives up after 10 seconds (or the patience given). On failure it says which step and
 * shows the output it saw (escape sequences made visible), and exits 1. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char seen[1 << 16]; /* output since the last expect */
static size_t nseen;

/* `never` patterns, each with the output it has yet to be looked for in
   (the tail kept from the last look, so a pattern cut between two reads
   is still found) */
#define NEVER_MAX 16
static struct {
    char text[256];
    size_t len;
    char tail[1 << 16];
    size_t ntail;
} nevers[NEVER_MAX];
static int nnevers;
static const char *never_seen; /* the first one that showed */
static FILE *transcript;       /* PTYRUN_TRANSCRIPT, or NULL */

static void look_for_nevers(const char *buf, size_t n)
{
    for (int k = 0; k < nnevers && !never_seen; k++) {
        char *tail = nevers[k].tail;
        size_t cap = sizeof nevers[k].tail;
        for (size_t i = 0; i < n; i++) {
            if (nevers[k].ntail == cap) { /* keep what a match may still end in */
                memmove(tail, tail + cap - nevers[k].len, nevers[k].len);
                nevers[k].ntail = nevers[k].len;
            }
            tail[nevers[k].ntail++] = buf[i];
            if (nevers[k].ntail >= nevers[k].len &&
                !memcmp(tail + nevers[k].ntail - nevers[k].len, nevers[k].text, nevers[k].len))
                never_seen = nevers[k].text;
        }
    }
}

static void show_seen(void)
{
    fprintf(stderr, "output since the last expect:\n    ");
    for (size_t i = 0; i < nseen; i++) {
        unsigned char c = (unsigned char)seen[i];
        if (c == '\n')
            fputs("\\n\n    ", stderr);
        else if (c == '\r')
            fputs("\\r", stderr);
        else if (c < 0x20 || c == 0x7f)
            fprintf(stderr, "\\x%02x", c);
        else
            fputc(c, stderr);
    }
    fputc('\n', stderr);
}

/* Reads what the program wrote, waiting up to ms; false at its end. */
static bool pump(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, ms) <= 0)
        return true;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0)
        return false;                       /* EIO: the program is gone */
    if (nseen + (size_t)n >= sizeof seen) { /* keep the latest half */
        memmove(seen, seen + sizeof seen / 2, nseen - sizeof seen / 2);
        nseen -= sizeof seen / 2;
    }
    memcpy(seen + nseen, buf, (size_t)n);
    nseen += (size_t)n;
    look_for_nevers(buf, (size_t)n);
    if (transcript)
        fwrite(buf, 1, (size_t)n, transcript);
    return true;
}

/* Where text ends in what was seen, or 0 when it is not there. */
static size_t holds(const char *text)
{
    size_t n = strlen(text);
    for (size_t i = 0; i + n <= nseen; i++)
        if (!memcmp(seen + i, text, n))
            return i + n;
    return 0;
}

static size_t unescape(const char *in, char *out)
{
    size_t n = 0;
    for (const char *p = in; *p; p++) {
        if (*p != '\\' || !p[1]) {
            out[n++] = *p;
            continue;
        }
        p++;
        switch (*p) {
        case 'r': out[n++] = '\r'; break;
        case 'n': out[n++] = '\n'; break;
        case 't': out[n++] = '\t'; break;
        case 'e': out[n++] = 0x1b; break;
        case 'x': {
            char hex[3] = {p[1], p[1] ? p[2] : 0, 0};
            out[n++] = (char)strtol(hex, NULL, 16);
            p += 2;
            break;
        }
        default: out[n++] = *p; break;
        }
    }
    return n;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The program under test and where the script is in driving it. */
typedef struct run {
    const char *script; /* its name, for the messages */
    int step;           /* the script's line */
    int fd;             /* the terminal's side of the program */
    pid_t pid;
    int status;
    bool alive;
    double patience;
    struct winsize ws;
} run;

/* What a step returns to go on to the next one; any other value is the
   status ptyrun exits with. */
#define GO_ON (-1)

/* Fails the step, showing the output that was seen, and stops the program. */
static int fail_seen(run *r, const char *fmt, const char *what)
{
    fprintf(stderr, "%s:%d: ", r->script, r->step);
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    show_seen();
    kill(r->pid, SIGKILL);
    return 1;
}

static int step_columns(run *r, const char *arg)
{
    r->ws.ws_col = (unsigned short)atoi(arg);
    if (ioctl(r->fd, TIOCSWINSZ, &r->ws) != 0) {
        fprintf(stderr, "%s:%d: cannot resize the terminal\n", r->script, r->step);
        return 1;
    }
    return GO_ON;
}

static int step_never(run *r, const char *arg)
{
    if (nnevers == NEVER_MAX) {
        fprintf(stderr, "%s:%d: too many 'never' steps\n", r->script, r->step);
        return 2;
    }
    char text[4096];
    size_t n = unescape(arg, text);
    if (n == 0 || n >= sizeof nevers[0].text) {
        fprintf(stderr, "%s:%d: a 'never' text of 1 to %zu bytes\n", r->script, r->step, sizeof nevers[0].text - 1);
        return 2;
    }
    memcpy(nevers[nnevers].text, text, n);
    nevers[nnevers++].len = n;
    return GO_ON;
}

static int step_send(run *r, const char *arg)
{
    char text[4096];
    size_t n = unescape(arg, text);
    /* a moment for the program to get back to reading, as a person typing
       would give it (readline sets up the terminal after it prints the
       prompt) */
    pump(r->fd, 100);
    /* one key at a time, as typed: readline reacts to each */
    for (size_t i = 0; i < n; i++) {
        if (write(r->fd, text + i, 1) != 1) {
            fprintf(stderr, "%s:%d: cannot type into the terminal\n", r->script, r->step);
            return 1;
        }
        pump(r->fd, 5);
    }
    return GO_ON;
}

/* expect and reject: both take the escapes of send */
static int step_expect(run *r, const char *line, const char *arg)
{
    char text[4096];
    text[unescape(arg, text)] = '\0';
    if (line[0] == 'r') {
        pump(r->fd, 200);
        if (holds(text))
            return fail_seen(r, "saw \"%s\"", line + 7);
        return GO_ON;
    }
    double until = now() + r->patience;
    while (!holds(text) && r->alive && now() < until)
        r->alive = pump(r->fd, 50);
    if (!holds(text))
        return fail_seen(r, "never saw \"%s\"", line + 7);
    /* what came after it is for the next expect */
    size_t end = holds(text);
    memmove(seen, seen + end, nseen - end);
    nseen -= end;
    return GO_ON;
}

static int step_exit(run *r, const char *arg)
{
    double until = now() + r->patience;
    int got = 0;
    while ((got = waitpid(r->pid, &r->status, WNOHANG)) == 0 && now() < until)
        pump(r->fd, 50);
    const char *why = NULL;
    if (never_seen)
        fprintf(stderr, "%s:%d: saw \"%s\", which was never to show\n", r->script, r->step, never_seen);
    else if (got != r->pid || !WIFEXITED(r->status) || WEXITSTATUS(r->status) != atoi(arg))
        why = got != r->pid ? "still running" : WIFEXITED(r->status) ? "another status" : "killed";
    else
        return 0;
    if (why)
        fprintf(stderr, "%s:%d: the program did not exit with status %s (%s)\n", r->script, r->step, arg, why);
    show_seen();
    if (got != r->pid)
        kill(r->pid, SIGKILL);
    return 1;
}

/* One line of the script. */
static int run_step(run *r, const char *line)
{
    const char *arg = strchr(line, ' ');
    arg = arg ? arg + 1 : line + strlen(line);
    if (!strncmp(line, "patience ", 9)) {
        r->patience = atof(arg);
        return GO_ON;
    }
    if (!strncmp(line, "columns ", 8))
        return step_columns(r, arg);
    if (never_seen)
        return fail_seen(r, "saw \"%s\", which was never to show", never_seen);
    if (!strncmp(line, "never ", 6))
        return step_never(r, arg);
    if (!strncmp(line, "send ", 5))
        return step_send(r, arg);
    if (!strncmp(line, "expect ", 7) || !strncmp(line, "reject ", 7))
        return step_expect(r, line, arg);
    if (!strncmp(line, "exit ", 5))
        return step_exit(r, arg);
    fprintf(stderr, "%s:%d: unknown step '%s'\n", r->script, r->step, line);
    kill(r->pid, SIGKILL);
    return 2;
}

/* The program started on a new terminal; false (said) when it cannot be. */
static bool start(run *r, char **argv)
{
    r->pid = forkpty(&r->fd, NULL, NULL, &r->ws);
    if (r->pid < 0) {
        perror("forkpty");
        return false;
    }
    if (r->pid == 0) {
        execvp(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    return true;
}

/* Every step of the script, in turn; the status to exit with. */
static int run_script(run *r, FILE *script)
{
    char line[4096];
    while (fgets(line, sizeof line, script)) {
        r->step++;
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        int code = run_step(r, line);
        if (code != GO_ON)
            return code;
    }
    kill(r->pid, SIGKILL);
    waitpid(r->pid, &r->status, 0);
    if (never_seen) {
        fprintf(stderr, "%s: saw \"%s\", which was never to show\n", r->script, never_seen);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ptyrun SCRIPT PROGRAM [ARG]...\n");
        return 2;
    }
    FILE *script = fopen(argv[1], "r");
    if (!script) {
        perror(argv[1]);
        return 2;
    }
    const char *transcript_path = getenv("PTYRUN_TRANSCRIPT");
    if (transcript_path && !(transcript = fopen(transcript_path, "we"))) {
        perror(transcript_path);
        return 2;
    }
    run r = {.script = argv[1], .status = -1, .alive = true, .patience = 10, .ws = {.ws_row = 40, .ws_col = 200}};
    if (!start(&r, argv + 2))
        return 2;
    return run_script(&r, script);
}
