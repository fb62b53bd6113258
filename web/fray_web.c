/* fray_web: what the playground (web/) needs of libfray besides the fray
 * commands themselves, through fray.h alone.
 *
 * The playground runs the `fray` program's own commands (cli/, compiled
 * with libfray into WebAssembly by web/build.sh), so that `run`, `prob`,
 * `sim` and `diff` print exactly what they print in a terminal. For the
 * page it needs more than their text: each diagnostic with its file, line
 * and column (to show it in the editor), the numbers of each distribution
 * (a chart), the progress of a simulation and its figures (charts). The
 * commands' objects are built with three calls of fray.h renamed
 * (web/build.sh: -Dfray_open=fray_web_open, ...), so that they come here
 * first; each does what the library does, and tells the page what it
 * needs through fray_web_event (a JavaScript function the worker gives,
 * web/src/worker.js), as a kind and a JSON text.
 *
 * Nothing else of the program changes: the diagnostics are printed as
 * the library's default prints them, and the results are the library's. */
#define _POSIX_C_SOURCE 200809L
#include <emscripten.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fray.h"

/* The page's end of the events: kind ("diagnostic", "distribution",
   "progress", "sim") and its JSON. Given by the worker (Module.frayEvent). */
EM_JS(void, fray_web_event, (const char *kind, const char *json), {
    if (Module["frayEvent"])
        Module["frayEvent"](UTF8ToString(kind), UTF8ToString(json));
});

/* The renamed entry points, as the commands' objects call them. */
fray *fray_web_open(const fray_options *opts);
fray_status fray_web_prob(fray *f, const char *expr, fray_distribution **out);
fray_status fray_web_sim(fray *f, const char *scenario, const fray_sim_options *o, fray_sim_result **out);
/* `fray repl` needs a terminal (readline): not in the browser. */
int cmd_repl(int argc, char **argv);
void fray_web_flush(void);

/* --- JSON ------------------------------------------------------------------------------ */

/* A text being written, in memory (open_memstream). */
typedef struct json {
    FILE *out;
    char *text;
    size_t len;
} json;

static bool json_open(json *j)
{
    *j = (json){0};
    j->out = open_memstream(&j->text, &j->len);
    return j->out != NULL;
}

/* Sends what was written as an event of that kind, and frees it. */
static void json_send(json *j, const char *kind)
{
    if (fclose(j->out) == 0)
        fray_web_event(kind, j->text);
    free(j->text);
}

static void json_string(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* A number as JSON has them (no NaN or infinity). */
static void json_number(FILE *out, double x)
{
    if (x != x || x > 1e308 || x < -1e308)
        fputs("null", out);
    else
        fprintf(out, "%.17g", x);
}

/* --- diagnostics ------------------------------------------------------------------------- */

static const char *level_name(fray_level l)
{
    return l == FRAY_ERROR ? "error" : l == FRAY_WARNING ? "warning" : "note";
}

/* Printed as the library's default prints it (the transcript flushed
   first, to keep the order things happened in), and sent with its place. */
static void on_diagnostic(void *user, const fray_diagnostic *d)
{
    (void)user;
    fflush(stdout);
    fputs(d->text, stderr);
    json j;
    if (!json_open(&j))
        return;
    fprintf(j.out, "{\"level\": \"%s\", \"file\": ", level_name(d->level));
    json_string(j.out, d->file);
    fprintf(j.out, ", \"line\": %d, \"column\": %d, \"message\": ", d->line, d->column);
    json_string(j.out, d->message);
    fputs(", \"text\": ", j.out);
    json_string(j.out, d->text);
    fputc('}', j.out);
    json_send(&j, "diagnostic");
}

fray *fray_web_open(const fray_options *opts)
{
    fray *f = fray_open(opts);
    if (f)
        fray_on_diagnostic(f, on_diagnostic, NULL);
    return f;
}

/* --- distributions ------------------------------------------------------------------------- */

/* Points of a chart: more would not show. */
#define MOST_POINTS 2000

/* Each outcome with its chance (in bins of equal width past MOST_POINTS
   outcomes), for the chart of `fray prob`. */
static void send_distribution(const char *expr, const fray_distribution *d)
{
    json j;
    if (!json_open(&j))
        return;
    int64_t lo = fray_distribution_lowest(d), hi = fray_distribution_highest(d);
    /* the outcomes less one, in unsigned: they may be 2^64 */
    uint64_t last = (uint64_t)hi - (uint64_t)lo, width = last / MOST_POINTS + 1;
    fputs("{\"expression\": ", j.out);
    json_string(j.out, expr);
    fprintf(j.out, ", \"yes_no\": %s, \"mean\": ", fray_distribution_yes_no(d) ? "true" : "false");
    json_number(j.out, fray_distribution_mean(d));
    fprintf(j.out, ", \"width\": %llu, \"points\": [", (unsigned long long)width);
    for (uint64_t k = 0;; k += width) {
        int64_t a = (int64_t)((uint64_t)lo + k);
        int64_t b = last - k < width ? hi : a + (int64_t)(width - 1);
        double p = width == 1 ? fray_distribution_p(d, a)
                              : fray_distribution_at_least(d, a) - (b == hi ? 0 : fray_distribution_at_least(d, b + 1));
        fprintf(j.out, "%s[%lld, ", k ? ", " : "", (long long)a);
        json_number(j.out, p < 0 ? 0 : p);
        fputc(']', j.out);
        if (b == hi)
            break;
    }
    fputs("]}", j.out);
    json_send(&j, "distribution");
}

fray_status fray_web_prob(fray *f, const char *expr, fray_distribution **out)
{
    fray_status st = fray_prob(f, expr, out);
    if (st == FRAY_OK && *out)
        send_distribution(expr, *out);
    return st;
}

/* --- simulations ------------------------------------------------------------------------- */

typedef struct progress_relay {
    void (*inner)(void *user, uint64_t done, uint64_t runs);
    void *inner_user;
} progress_relay;

static void on_progress(void *user, uint64_t done, uint64_t runs)
{
    const progress_relay *r = user;
    char text[64];
    snprintf(text, sizeof text, "{\"done\": %llu, \"runs\": %llu}", (unsigned long long)done, (unsigned long long)runs);
    fray_web_event("progress", text);
    if (r->inner)
        r->inner(r->inner_user, done, runs);
}

static void sim_sides(FILE *out, const fray_sim_result *r)
{
    fputs("\"sides\": [", out);
    for (size_t i = 0; i < r->nsides; i++) {
        fputs(i ? ", {\"name\": " : "{\"name\": ", out);
        json_string(out, r->sides[i].name);
        fprintf(out, ", \"wins\": %llu}", (unsigned long long)r->sides[i].wins);
    }
    fputs("], \"rounds\": [", out);
    for (size_t k = 0; k < r->nrounds; k++)
        fprintf(out, "%s%llu", k ? ", " : "", (unsigned long long)r->rounds[k]);
    fputc(']', out);
}

static void sim_creatures(FILE *out, const fray_sim_result *r)
{
    fputs("\"creatures\": [", out);
    for (size_t i = 0; i < r->ncreatures; i++) {
        const fray_sim_creature *c = &r->creatures[i];
        fputs(i ? ", {\"name\": " : "{\"name\": ", out);
        json_string(out, c->name);
        fputs(", \"side\": ", out);
        json_string(out, c->side);
        fprintf(out, ", \"dealt\": %llu, \"taken\": %llu, \"down\": %llu}", (unsigned long long)c->dealt,
                (unsigned long long)c->taken, (unsigned long long)c->down);
    }
    fputc(']', out);
}

/* A simulation's figures, for the charts of `fray sim`. */
static void send_sim(const char *scenario, const fray_sim_options *o, const fray_sim_result *r)
{
    json j;
    if (!json_open(&j))
        return;
    fputs("{\"scenario\": ", j.out);
    json_string(j.out, scenario);
    fputs(", \"vs\": ", j.out);
    json_string(j.out, o->system_path);
    fputs(", \"system\": ", j.out);
    json_string(j.out, r->system);
    fputs(", \"health\": ", j.out);
    json_string(j.out, r->health);
    fprintf(j.out, ", \"runs\": %llu, \"undecided\": %llu, \"nobody\": %llu, ", (unsigned long long)r->runs,
            (unsigned long long)r->undecided, (unsigned long long)r->nobody);
    sim_sides(j.out, r);
    fputs(", ", j.out);
    sim_creatures(j.out, r);
    fputc('}', j.out);
    json_send(&j, "sim");
}

fray_status fray_web_sim(fray *f, const char *scenario, const fray_sim_options *o, fray_sim_result **out)
{
    progress_relay relay = {o->progress, o->progress_user};
    fray_sim_options mine = *o;
    mine.progress = on_progress;
    mine.progress_user = &relay;
    fray_status st = fray_sim(f, scenario, &mine, out);
    if (st == FRAY_OK && *out)
        send_sim(scenario, o, *out);
    return st;
}

/* --- the rest ----------------------------------------------------------------------------- */

int cmd_repl(int argc, char **argv)
{
    (void)argc, (void)argv;
    fputs("fray repl: not in the browser (it needs a terminal); 'fray run' plays a script\n", stderr);
    return 2;
}

/* What a command printed and left in the buffers, out: main returns
   without exit(), which would flush them. */
EMSCRIPTEN_KEEPALIVE void fray_web_flush(void)
{
    fflush(stdout);
    fflush(stderr);
}
