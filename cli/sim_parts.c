/* sim_parts: slices of a simulation written and added up (sim_parts.h).
 *
 * A part is lines of text, a word and its values each (names last, as
 * they run to the end of the line):
 *
 *     fray-sim-part 1
 *     scenario PATH / other PATH / vs RULES   (other and vs: "-" for none)
 *     seed N / threads N / slice FROM TO / results N
 *     result / system NAME / health NAME / runs N / undecided N / nobody N
 *     rounds K:N ...                          (rounds with runs, of all)
 *     side ORDER WINS NAME / side-rounds K:N ...
 *     creature ORDER DEALT DEALT_SQ TAKEN TAKEN_SQ DOWN SIDE NAME
 *     trigger ORDER FIRED RUNS INTERNAL NAME
 *     end                                     (after each result) */
#define _POSIX_C_SOURCE 200809L
#include "cli/sim_parts.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PART_MAGIC "fray-sim-part 1"

static void write_hist(FILE *out, const char *word, const uint64_t *h, size_t n)
{
    fprintf(out, "%s", word);
    for (size_t k = 0; k < n; k++)
        if (h[k])
            fprintf(out, " %zu:%" PRIu64, k, h[k]);
    fputc('\n', out);
}

void sim_part_write(FILE *out, const sim_whole *w, uint64_t from, uint64_t to, const fray_sim_result *const *rs)
{
    fprintf(out, "%s\nscenario %s\nother %s\nvs %s\n", PART_MAGIC, w->scenario, w->other ? w->other : "-",
            w->vs ? w->vs : "-");
    fprintf(out, "seed %" PRIu64 "\nthreads %d\nslice %" PRIu64 " %" PRIu64 "\nresults %d\n", w->seed, w->threads, from,
            to, w->n);
    for (int i = 0; i < w->n; i++) {
        const fray_sim_result *r = rs[i];
        fprintf(out, "result\nsystem %s\nhealth %s\nruns %" PRIu64 "\nundecided %" PRIu64 "\nnobody %" PRIu64 "\n",
                r->system, r->health, r->runs, r->undecided, r->nobody);
        write_hist(out, "rounds", r->rounds, r->nrounds);
        for (size_t k = 0; k < r->nsides; k++) {
            const fray_sim_side *s = &r->sides[k];
            fprintf(out, "side %ld %" PRIu64 " %s\n", s->order, s->wins, s->name);
            write_hist(out, "side-rounds", s->rounds, s->nrounds);
        }
        for (size_t k = 0; k < r->ncreatures; k++) {
            const fray_sim_creature *c = &r->creatures[k];
            fprintf(out, "creature %ld %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s %s\n", c->order,
                    c->dealt, c->dealt_squares, c->taken, c->taken_squares, c->down, c->side ? c->side : "-", c->name);
        }
        for (size_t k = 0; k < r->ntriggers; k++) {
            const fray_sim_trigger *t = &r->triggers[k];
            fprintf(out, "trigger %ld %" PRIu64 " %" PRIu64 " %d %s\n", t->order, t->fired, t->runs,
                    t->internal ? 1 : 0, t->name);
        }
        fprintf(out, "end\n");
    }
}

/* --- reading ---------------------------------------------------------------------- */

static bool bad(const sim_reader *rd, const char *what)
{
    fprintf(stderr, "fray %s: %s:%ld: %s\n", rd->command, rd->path, rd->lineno, what);
    return false;
}

/* The next line, without its newline, and its text after `word ` in *rest;
   false at the end or when the line is another word. */
static bool expect(sim_reader *rd, const char *word, const char **rest)
{
    ssize_t got = getline(&rd->line, &rd->cap, rd->in);
    if (got < 0)
        return false;
    rd->lineno++;
    if (got > 0 && rd->line[got - 1] == '\n')
        rd->line[got - 1] = '\0';
    size_t len = strlen(word);
    if (strncmp(rd->line, word, len) || (rd->line[len] != ' ' && rd->line[len] != '\0'))
        return false;
    *rest = rd->line[len] ? rd->line + len + 1 : rd->line + len;
    return true;
}

bool sim_read_word(sim_reader *rd, const char *word, const char **rest)
{
    return expect(rd, word, rest);
}

static bool expect_u64(sim_reader *rd, const char *word, uint64_t *out)
{
    const char *rest;
    char *end;
    if (!expect(rd, word, &rest))
        return false;
    *out = strtoull(rest, &end, 10);
    return end != rest && !*end;
}

static char *dup_or_null(const char *s)
{
    return strcmp(s, "-") ? strdup(s) : NULL;
}

/* Adds `K:N ...` to a histogram. */
static bool add_hist(const char *text, uint64_t **h, size_t *n)
{
    while (*text == ' ')
        text++;
    while (*text) {
        char *end;
        unsigned long long k = strtoull(text, &end, 10), v;
        if (end == text || *end != ':' || k > 1000000)
            return false;
        text = end + 1;
        v = strtoull(text, &end, 10);
        if (end == text)
            return false;
        text = end;
        while (*text == ' ')
            text++;
        if (k >= *n) {
            uint64_t *grown = realloc(*h, (k + 1) * sizeof *grown);
            if (!grown)
                return false;
            memset(grown + *n, 0, (k + 1 - *n) * sizeof *grown);
            *h = grown;
            *n = k + 1;
        }
        (*h)[k] += v;
    }
    return true;
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* A side of that name in r, made when new (by its order); NULL when out
   of memory. */
static fray_sim_side *side_named(fray_sim_result *r, const char *name, long order)
{
    for (size_t k = 0; k < r->nsides; k++)
        if (!strcmp(r->sides[k].name, name))
            return &r->sides[k];
    fray_sim_side *grown = realloc(r->sides, (r->nsides + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    r->sides = grown;
    fray_sim_side *s = &grown[r->nsides];
    *s = (fray_sim_side){.name = strdup(name), .order = order};
    if (!s->name)
        return NULL;
    r->nsides++;
    return s;
}

static fray_sim_creature *creature_named(fray_sim_result *r, const char *name, const char *side, long order)
{
    for (size_t k = 0; k < r->ncreatures; k++)
        if (!strcmp(r->creatures[k].name, name))
            return &r->creatures[k];
    fray_sim_creature *grown = realloc(r->creatures, (r->ncreatures + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    r->creatures = grown;
    fray_sim_creature *c = &grown[r->ncreatures];
    *c = (fray_sim_creature){.name = strdup(name), .side = side ? strdup(side) : NULL, .order = order};
    if (!c->name || (side && !c->side))
        return NULL;
    r->ncreatures++;
    return c;
}

static fray_sim_trigger *trigger_named(fray_sim_result *r, const char *name, long order, bool internal)
{
    for (size_t k = 0; k < r->ntriggers; k++)
        if (!strcmp(r->triggers[k].name, name))
            return &r->triggers[k];
    fray_sim_trigger *grown = realloc(r->triggers, (r->ntriggers + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    r->triggers = grown;
    fray_sim_trigger *t = &grown[r->ntriggers];
    *t = (fray_sim_trigger){.name = strdup(name), .internal = internal, .order = order};
    if (!t->name)
        return NULL;
    r->ntriggers++;
    return t;
}

/* The rows of one result, added into r; false after saying why. */
static bool read_result(sim_reader *rd, fray_sim_result *r, bool first)
{
    const char *rest;
    uint64_t runs, undecided, nobody;
    if (!expect(rd, "result", &rest) || !expect(rd, "system", &rest))
        return bad(rd, "expected a result and its system");
    if (first && !(r->system = strdup(rest)))
        return bad(rd, "out of memory");
    if (!first && strcmp(r->system, rest))
        return bad(rd, "a part of a simulation of another system");
    if (!expect(rd, "health", &rest))
        return bad(rd, "expected the stat counted as damage");
    if (first && !(r->health = strdup(rest)))
        return bad(rd, "out of memory");
    if (!first && strcmp(r->health, rest))
        return bad(rd, "a part that counts damage by another stat");
    if (!expect_u64(rd, "runs", &runs) || !expect_u64(rd, "undecided", &undecided) ||
        !expect_u64(rd, "nobody", &nobody) || !expect(rd, "rounds", &rest) || !add_hist(rest, &r->rounds, &r->nrounds))
        return bad(rd, "expected runs, undecided, nobody and rounds");
    r->runs += runs;
    r->undecided += undecided;
    r->nobody += nobody;
    fray_sim_side *last = NULL;
    while (getline(&rd->line, &rd->cap, rd->in) >= 0) {
        rd->lineno++;
        rd->line[strcspn(rd->line, "\n")] = '\0';
        char *l = rd->line;
        long order;
        int at = 0;
        unsigned long long a, b, c, d, e;
        int internal;
        char side[256];
        if (!strcmp(l, "end"))
            return true;
        if (sscanf(l, "side %ld %llu %n", &order, &a, &at) == 2 && at && l[at]) {
            if (!(last = side_named(r, l + at, order)))
                return bad(rd, "out of memory");
            last->wins += a;
        } else if (!strncmp(l, "side-rounds", 11) && last) {
            if (!add_hist(l + 11, &last->rounds, &last->nrounds))
                return bad(rd, "a side's rounds are not K:N ...");
        } else if (sscanf(l, "creature %ld %llu %llu %llu %llu %llu %255s %n", &order, &a, &b, &c, &d, &e, side, &at) ==
                       7 &&
                   at && l[at]) {
            fray_sim_creature *cr = creature_named(r, l + at, strcmp(side, "-") ? side : NULL, order);
            if (!cr)
                return bad(rd, "out of memory");
            cr->dealt += a, cr->dealt_squares += b, cr->taken += c, cr->taken_squares += d, cr->down += e;
        } else if (sscanf(l, "trigger %ld %llu %llu %d %n", &order, &a, &b, &internal, &at) == 4 && at && l[at]) {
            fray_sim_trigger *t = trigger_named(r, l + at, order, internal != 0);
            if (!t)
                return bad(rd, "out of memory");
            t->fired += a, t->runs += b;
        } else
            return bad(rd, "not a line of a part");
    }
    return bad(rd, "the part ends before its result does");
}

/* One part from where the reader stands, added to w (first: taken as it
 * is) and rs; its slice in *from, *to. */
static bool read_part(sim_reader *rd, bool first, sim_whole *w, fray_sim_result *rs[2], uint64_t *from, uint64_t *to)
{
    const char *rest;
    bool ok = expect(rd, PART_MAGIC, &rest) || bad(rd, "not a part of a simulation (fray sim --format part)");
    char *scenario = NULL, *other = NULL, *vs = NULL;
    uint64_t seed = 0, threads = 0, n = 0;
    if (ok && expect(rd, "scenario", &rest))
        scenario = strdup(rest);
    if (ok && expect(rd, "other", &rest))
        other = dup_or_null(rest);
    if (ok && expect(rd, "vs", &rest))
        vs = dup_or_null(rest);
    if (ok) {
        bool head = scenario && expect_u64(rd, "seed", &seed) && expect_u64(rd, "threads", &threads) &&
                    expect(rd, "slice", &rest);
        if (head) {
            char *end;
            *from = strtoull(rest, &end, 10);
            *to = strtoull(end, &end, 10);
            head = !*end && *to >= *from;
        }
        ok = (head && expect_u64(rd, "results", &n) && n >= 1 && n <= 2) ||
             bad(rd, "expected the scenario, its seed, threads, slice and results");
    }
    if (ok && first)
        *w = (sim_whole){scenario, other, vs, seed, (int)threads, (int)n};
    else if (ok) {
        ok = (same(w->scenario, scenario) && same(w->other, other) && same(w->vs, vs) && w->seed == seed &&
              w->n == (int)n) ||
             bad(rd, "a part of another simulation (another scenario, system, seed or number of results)");
        if (ok && w->threads != (int)threads)
            w->threads = 0; /* played on several machines: no one count to give */
        free(scenario), free(other), free(vs);
    } else
        free(scenario), free(other), free(vs);
    for (int i = 0; ok && i < (int)n; i++) {
        if (!rs[i] && !(rs[i] = calloc(1, sizeof *rs[i])))
            ok = bad(rd, "out of memory");
        ok = ok && read_result(rd, rs[i], first);
    }
    return ok;
}

static int by_side_order(const void *a, const void *b)
{
    const fray_sim_side *x = a, *y = b;
    return x->order != y->order ? (x->order < y->order ? -1 : 1) : strcmp(x->name, y->name);
}

static int by_creature_order(const void *a, const void *b)
{
    const fray_sim_creature *x = a, *y = b;
    return x->order != y->order ? (x->order < y->order ? -1 : 1) : strcmp(x->name, y->name);
}

static int by_trigger_order(const void *a, const void *b)
{
    const fray_sim_trigger *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int by_from(const void *a, const void *b)
{
    const sim_slice *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

bool sim_merge_read(sim_merge *m, sim_reader *rd)
{
    if (m->nslices == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 8;
        sim_slice *grown = realloc(m->slices, cap * sizeof *grown);
        if (!grown)
            return bad(rd, "out of memory");
        m->slices = grown, m->cap = cap;
    }
    sim_slice *sl = &m->slices[m->nslices];
    if (!read_part(rd, m->nslices == 0, &m->w, m->rs, &sl->from, &sl->to))
        return false;
    snprintf(sl->where, sizeof sl->where, "%s:%ld", rd->path, rd->lineno);
    m->nslices++;
    return true;
}

bool sim_merge_finish(sim_merge *m, const char *command)
{
    /* every run in exactly one part, from 0 on */
    if (m->nslices)
        qsort(m->slices, m->nslices, sizeof *m->slices, by_from);
    uint64_t next = 0;
    for (size_t i = 0; i < m->nslices; i++) {
        const sim_slice *sl = &m->slices[i];
        if (sl->from != next) {
            fprintf(stderr, "fray %s: %s: runs %" PRIu64 "..%" PRIu64 " are %s\n", command, sl->where,
                    sl->from < next ? sl->from : next, sl->from < next ? next - 1 : sl->from - 1,
                    sl->from < next ? "in another part too" : "in no part");
            return false;
        }
        next = sl->to + 1;
    }
    for (int i = 0; i < m->w.n; i++) { /* (qsort takes no null array, even empty) */
        fray_sim_result *r = m->rs[i];
        if (r->nsides)
            qsort(r->sides, r->nsides, sizeof *r->sides, by_side_order);
        if (r->ncreatures)
            qsort(r->creatures, r->ncreatures, sizeof *r->creatures, by_creature_order);
        if (r->ntriggers)
            qsort(r->triggers, r->ntriggers, sizeof *r->triggers, by_trigger_order);
    }
    return true;
}

void sim_merge_free(sim_merge *m)
{
    sim_merged_free(m->rs[0]);
    sim_merged_free(m->rs[1]);
    sim_whole_free(&m->w);
    free(m->slices);
    *m = (sim_merge){0};
}

bool sim_reader_open(sim_reader *rd, const char *path, const char *command)
{
    *rd = (sim_reader){.in = fopen(path, "r"), .path = path, .command = command};
    struct stat st;
    int err = !rd->in ? errno : fstat(fileno(rd->in), &st) ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
    if (!err)
        return true;
    if (rd->in)
        fclose(rd->in);
    rd->in = NULL;
    char why[128];
    snprintf(why, sizeof why, "%s", err == ENOENT ? "no such file" : err == EISDIR ? "is a directory" : strerror(err));
    why[0] = (char)tolower((unsigned char)why[0]); /* strerror's words begin a sentence */
    fprintf(stderr, "fray %s: cannot read '%s': %s\n", command, path, why);
    return false;
}

bool sim_parts_merge(char *const *paths, int nparts, sim_whole *w, fray_sim_result *rs[2])
{
    sim_merge m = {0};
    bool ok = true;
    for (int i = 0; ok && i < nparts; i++) {
        sim_reader rd;
        if (!sim_reader_open(&rd, paths[i], "sim")) {
            ok = false;
            break;
        }
        ok = sim_merge_read(&m, &rd);
        free(rd.line);
        fclose(rd.in);
    }
    ok = ok && sim_merge_finish(&m, "sim");
    if (ok) {
        *w = m.w;
        rs[0] = m.rs[0], rs[1] = m.rs[1];
        free(m.slices);
    } else
        sim_merge_free(&m);
    return ok;
}

void sim_merged_free(fray_sim_result *r)
{
    if (!r)
        return;
    free((char *)r->system);
    free((char *)r->health);
    for (size_t k = 0; k < r->nsides; k++) {
        free((char *)r->sides[k].name);
        free(r->sides[k].rounds);
    }
    for (size_t k = 0; k < r->ncreatures; k++) {
        free((char *)r->creatures[k].name);
        free((char *)r->creatures[k].side);
    }
    for (size_t k = 0; k < r->ntriggers; k++)
        free((char *)r->triggers[k].name);
    free(r->sides);
    free(r->creatures);
    free(r->triggers);
    free(r->rounds);
    free(r);
}

void sim_whole_free(sim_whole *w)
{
    free(w->scenario);
    free(w->other);
    free(w->vs);
    *w = (sim_whole){0};
}
