/* report: the rows of a comparison, built up and freed with their strings. */
#include "runtime/analysis/report.h"

#include <string.h>

#include "runtime/base/mem.h"

static void discard(fray_report *r, size_t sections_cap, size_t last_rows_cap);

static char *copy(report_builder *rb, const char *s)
{
    if (!s)
        return NULL;
    char *c = mem_strndup(s, strlen(s));
    if (!c)
        rb->oom = true;
    return c;
}

bool report_begin(report_builder *rb, const char *a, const char *b)
{
    memset(rb, 0, sizeof *rb);
    rb->r = MEM_NEW(fray_report);
    if (!rb->r)
        return false;
    rb->r->a = copy(rb, a);
    rb->r->b = copy(rb, b);
    return !rb->oom;
}

/* Sections keep exactly as many rows as they have, so that freeing knows
   the size; only the last one is still growing. */
static void trim_last(report_builder *rb)
{
    fray_report *r = rb->r;
    if (!r->nsections)
        return;
    fray_report_section *s = &r->sections[r->nsections - 1];
    if (rb->rows_cap > s->nrows) {
        void *rows = s->nrows ? mem_realloc(s->rows, rb->rows_cap * sizeof *s->rows, s->nrows * sizeof *s->rows)
                              : (mem_free(s->rows, rb->rows_cap * sizeof *s->rows), NULL);
        if (s->nrows && !rows) {
            rb->oom = true;
            return;
        }
        s->rows = rows;
    }
    rb->rows_cap = s->nrows;
}

void report_section(report_builder *rb, const char *title, const char *note)
{
    if (rb->oom)
        return;
    trim_last(rb);
    if (rb->oom) /* the last section keeps its room: it is still the last */
        return;
    fray_report *r = rb->r;
    fray_report_section *grown = mem_grow(r->sections, sizeof *grown, &rb->sections_cap, r->nsections + 1);
    if (!grown) {
        rb->oom = true;
        return;
    }
    r->sections = grown;
    fray_report_section *s = &grown[r->nsections++];
    memset(s, 0, sizeof *s);
    s->title = copy(rb, title);
    s->note = copy(rb, note);
    rb->rows_cap = 0;
}

void report_prob_row(report_builder *rb, const char *label, const char *a, const char *b, double pa, double pb)
{
    if (rb->oom || !rb->r->nsections)
        return;
    fray_report_section *s = &rb->r->sections[rb->r->nsections - 1];
    fray_report_row *grown = mem_grow(s->rows, sizeof *grown, &rb->rows_cap, s->nrows + 1);
    if (!grown) {
        rb->oom = true;
        return;
    }
    s->rows = grown;
    fray_report_row *row = &grown[s->nrows++];
    *row = (fray_report_row){.label = copy(rb, label), .a = copy(rb, a), .b = copy(rb, b), .pa = pa, .pb = pb};
    row->differs = (a == NULL) != (b == NULL) || (a && b && strcmp(a, b) != 0);
    rb->r->differences += row->differs;
}

void report_mark(report_builder *rb, bool summary, bool whole)
{
    if (rb->oom || !rb->r->nsections)
        return;
    rb->r->sections[rb->r->nsections - 1].summary = summary;
    rb->r->sections[rb->r->nsections - 1].whole = whole;
}

void report_differs(report_builder *rb, bool differs)
{
    if (rb->oom || !rb->r->nsections || !rb->r->sections[rb->r->nsections - 1].nrows)
        return;
    fray_report_section *s = &rb->r->sections[rb->r->nsections - 1];
    fray_report_row *row = &s->rows[s->nrows - 1];
    rb->r->differences += (size_t)differs - (size_t)row->differs;
    row->differs = differs;
}

void report_flag(report_builder *rb, bool flagged)
{
    report_differs(rb, flagged);
    if (!rb->oom && flagged)
        rb->r->differences--;
}

void report_row(report_builder *rb, const char *label, const char *a, const char *b)
{
    report_prob_row(rb, label, a, b, -1, -1);
}

fray_report *report_end(report_builder *rb)
{
    trim_last(rb);
    if (rb->r && rb->sections_cap > rb->r->nsections && !rb->oom) {
        fray_report *r = rb->r;
        if (r->nsections) {
            void *s =
                mem_realloc(r->sections, rb->sections_cap * sizeof *r->sections, r->nsections * sizeof *r->sections);
            if (s) {
                r->sections = s;
                rb->sections_cap = r->nsections;
            } else {
                rb->oom = true; /* they keep their room */
            }
        } else {
            mem_free(r->sections, rb->sections_cap * sizeof *r->sections);
            r->sections = NULL;
            rb->sections_cap = 0;
        }
    }
    if (rb->oom) {
        /* the last section's rows and the sections may still have room
           past their counts: they go by their capacities */
        discard(rb->r, rb->sections_cap, rb->rows_cap);
        rb->r = NULL;
    }
    return rb->r;
}

/* Frees r, whose sections array holds sections_cap and whose last section's
   rows array holds last_rows_cap. */
static void discard(fray_report *r, size_t sections_cap, size_t last_rows_cap)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nsections; i++) {
        fray_report_section *s = &r->sections[i];
        for (size_t k = 0; k < s->nrows; k++) {
            mem_strfree((char *)s->rows[k].label);
            mem_strfree((char *)s->rows[k].a);
            mem_strfree((char *)s->rows[k].b);
        }
        if (s->rows)
            mem_free(s->rows, (i + 1 == r->nsections ? last_rows_cap : s->nrows) * sizeof *s->rows);
        mem_strfree((char *)s->title);
        mem_strfree((char *)s->note);
    }
    if (r->sections)
        mem_free(r->sections, sections_cap * sizeof *r->sections);
    mem_strfree((char *)r->a);
    mem_strfree((char *)r->b);
    mem_free(r, sizeof *r);
}

void fray_report_free(fray_report *r)
{
    if (r)
        discard(r, r->nsections, r->nsections ? r->sections[r->nsections - 1].nrows : 0);
}
