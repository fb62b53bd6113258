/* sweep_parts: a sweep's slices written and added up (sweep_parts.h).
 *
 *     fray-sweep-part 1
 *     swept NAME / ruling 0|1 / words 0|1
 *     value TEXT                        (then that value's sim part)
 *     ... */
#define _POSIX_C_SOURCE 200809L
#include "cli/sweep_parts.h"

#include <stdlib.h>
#include <string.h>

#define SWEEP_MAGIC "fray-sweep-part 1"

void sweep_part_begin(FILE *out, const sweep_whole *w)
{
    fprintf(out, "%s\nswept %s\nruling %d\nwords %d\n", SWEEP_MAGIC, w->name, w->ruling ? 1 : 0, w->words ? 1 : 0);
}

void sweep_part_value(FILE *out, const char *value, const sim_whole *sw, uint64_t from, uint64_t to,
                      const fray_sim_result *r)
{
    fprintf(out, "value %s\n", value);
    sim_part_write(out, sw, from, to, &r);
}

static bool said(const sim_reader *rd, const char *what)
{
    fprintf(stderr, "fray sweep: %s:%ld: %s\n", rd->path, rd->lineno, what);
    return false;
}

/* A flag of the header: `word 0` or `word 1`. */
static bool read_flag(sim_reader *rd, const char *word, bool *out)
{
    const char *rest;
    if (!sim_read_word(rd, word, &rest) || (strcmp(rest, "0") && strcmp(rest, "1")))
        return false;
    *out = rest[0] == '1';
    return true;
}

/* The header of one file: taken as it is from the first, the same in the
   others. */
static bool read_header(sim_reader *rd, bool first, sweep_whole *w)
{
    const char *rest;
    if (!sim_read_word(rd, SWEEP_MAGIC, &rest))
        return said(rd, "not a part of a sweep (fray sweep --format part)");
    sweep_whole h = {0};
    if (!sim_read_word(rd, "swept", &rest) || !*rest)
        return said(rd, "expected what is swept");
    char *name = strdup(rest);
    bool ok = name && read_flag(rd, "ruling", &h.ruling) && read_flag(rd, "words", &h.words);
    if (!ok) {
        free(name);
        return said(rd, name ? "expected whether a ruling is swept, and whether by words" : "out of memory");
    }
    if (first) {
        *w = (sweep_whole){name, h.ruling, h.words};
        return true;
    }
    ok = !strcmp(w->name, name) && w->ruling == h.ruling && w->words == h.words;
    free(name);
    return ok || said(rd, "a part of another sweep (something else swept)");
}

/* The merge of value's runs, made when it is new. */
static sim_merge *merge_of(sweep_merged *m, const char *value)
{
    for (size_t i = 0; i < m->nvalues; i++)
        if (!strcmp(m->values[i], value))
            return &m->merges[i];
    char **values = realloc(m->values, (m->nvalues + 1) * sizeof *values);
    if (values)
        m->values = values;
    sim_merge *merges = realloc(m->merges, (m->nvalues + 1) * sizeof *merges);
    if (merges)
        m->merges = merges;
    char *copy = values && merges ? strdup(value) : NULL;
    if (!copy)
        return NULL;
    m->values[m->nvalues] = copy;
    m->merges[m->nvalues] = (sim_merge){0};
    return &m->merges[m->nvalues++];
}

static bool read_file(const char *path, bool first, sweep_merged *m)
{
    sim_reader rd;
    if (!sim_reader_open(&rd, path, "sweep"))
        return false;
    bool ok = read_header(&rd, first, &m->w), any = false;
    const char *rest;
    while (ok && sim_read_word(&rd, "value", &rest)) {
        sim_merge *into = *rest ? merge_of(m, rest) : NULL;
        ok = (into || said(&rd, *rest ? "out of memory" : "a value with no text")) && sim_merge_read(into, &rd);
        any = true;
    }
    /* the loop ends at the end of the file, or at a line that is no value */
    if (ok && !feof(rd.in))
        ok = said(&rd, "expected a value and its part");
    if (ok && !any)
        ok = said(&rd, "a sweep's part with no value");
    free(rd.line);
    fclose(rd.in);
    return ok;
}

bool sweep_parts_merge(char *const *paths, int nparts, sweep_merged *m)
{
    *m = (sweep_merged){0};
    bool ok = true;
    for (int i = 0; ok && i < nparts; i++)
        ok = read_file(paths[i], i == 0, m);
    for (size_t i = 0; ok && i < m->nvalues; i++) {
        ok = sim_merge_finish(&m->merges[i], "sweep");
        if (!ok)
            fprintf(stderr, "fray sweep: (the runs at %s = %s)\n", m->w.name, m->values[i]);
    }
    for (size_t i = 1; ok && i < m->nvalues; i++)
        if (m->merges[i].w.seed != m->merges[0].w.seed || strcmp(m->merges[i].w.scenario, m->merges[0].w.scenario)) {
            fprintf(stderr, "fray sweep: the parts at %s = %s are of another scenario or seed\n", m->w.name,
                    m->values[i]);
            ok = false;
        }
    if (!ok)
        sweep_merged_free(m);
    return ok;
}

void sweep_merged_free(sweep_merged *m)
{
    for (size_t i = 0; i < m->nvalues; i++) {
        free(m->values[i]);
        sim_merge_free(&m->merges[i]);
    }
    free(m->values);
    free(m->merges);
    free(m->w.name);
    *m = (sweep_merged){0};
}
