/* summary: the opening of a `fray diff` report (summary.h). */
#include "runtime/analysis/summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/analysis/profile.h"
#include "runtime/analysis/report.h"
#include "runtime/base/text.h"

/* The figure a cell starts with, and whether it is a share (ends in %). */
static bool figure_of(const char *cell, double *x, bool *share)
{
    if (!cell)
        return false;
    char *end;
    *x = strtod(cell, &end);
    if (end == cell)
        return false;
    *share = *end == '%';
    return true;
}

/* A headline row of the fight: B's cell followed by how far it is from A's. */
static void headline(report_builder *rb, const fray_report_row *row)
{
    double a, b;
    bool sa, sb;
    text_buf cell;
    text_init(&cell);
    text_put(&cell, row->b ? row->b : "-");
    if (figure_of(row->a, &a, &sa) && figure_of(row->b, &b, &sb) && sa == sb && a != b) {
        if (sa)
            text_add(&cell, " (%+.2f pts)", b - a);
        else if (a != 0)
            text_add(&cell, " (%+.3g, x%.2f)", b - a, b / a);
        else
            text_add(&cell, " (%+.3g)", b - a);
    }
    report_prob_row(rb, row->label, row->a, cell.s, row->pa, row->pb);
    report_differs(rb, row->differs);
    text_free(&cell);
}

/* The labels of a section's rows that differ, as many as fit a line. */
static void differing(const fray_report_section *s, text_buf *out, size_t *count)
{
    *count = 0;
    for (size_t k = 0; k < s->nrows; k++) {
        if (!s->rows[k].differs)
            continue;
        const char *label = s->rows[k].label;
        while (*label == ' ')
            label++;
        if (++*count <= 6)
            text_add(out, "%s%s", *count > 1 ? ", " : "", label);
    }
    if (*count > 6)
        text_add(out, ", and %zu more", *count - 6);
}

/* The rows of the sections from..to that differ. */
static void section_rows(report_builder *rb, const fray_report *r, size_t from, size_t to)
{
    for (size_t i = from; i < to && i < r->nsections; i++) {
        const fray_report_section *s = &r->sections[i];
        if (s->whole)
            continue;
        text_buf which;
        text_init(&which);
        size_t n;
        differing(s, &which, &n);
        if (n) {
            char count[64];
            snprintf(count, sizeof count, "%zu differ%s", n, n == 1 ? "s" : "");
            report_row(rb, s->title, count, which.s);
            report_differs(rb, true);
        }
        text_free(&which);
    }
}

static void copy_section(report_builder *rb, const fray_report_section *s)
{
    report_section(rb, s->title, s->note);
    report_mark(rb, s->summary, s->whole);
    for (size_t k = 0; k < s->nrows; k++) {
        const fray_report_row *row = &s->rows[k];
        report_prob_row(rb, row->label, row->a, row->b, row->pa, row->pb);
        report_differs(rb, row->differs); /* as it was marked, not as its texts compare */
    }
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* Where a row of the reference fight goes in the summary: who wins (0),
   the damage (1), how long fights last (2), who wins early (3), how it
   was worked out (4); -1: not there. */
#define HEADLINE_RANKS 5
static int headline_rank(const char *label)
{
    if (strstr(label, " wins by round "))
        return 3;
    if (ends_with(label, " wins"))
        return 0;
    if (!strcmp(label, "damage per turn") || !strncmp(label, "damage per round, ", 18))
        return 1;
    if (!strcmp(label, "rounds a fight lasts"))
        return 2;
    return strcmp(label, "how") ? -1 : 4;
}

fray_report *summary_prepend(const fray_report *r, size_t play)
{
    report_builder rb;
    if (!report_begin(&rb, r->a, r->b)) {
        fray_report_free(rb.r);
        return NULL;
    }
    text_buf note;
    text_init(&note);
    text_add(&note, "%zu difference%s", r->differences, r->differences == 1 ? "" : "s");
    const fray_report_section *fight = NULL;
    for (size_t i = 0; i < r->nsections && !fight; i++)
        if (r->sections[i].whole)
            fight = &r->sections[i];
    if (fight && fight->nrows)
        text_add(&note, "; the reference fight's figures, B's with how far it is from A's");
    report_section(&rb, "Summary", note.s);
    report_mark(&rb, true, true);
    text_free(&note);
    /* the fight's outcome first, then what makes it, then how it was
       worked out */
    for (int rank = 0; fight && rank < HEADLINE_RANKS; rank++)
        for (size_t k = 0; k < fight->nrows; k++)
            if (headline_rank(fight->rows[k].label) == rank)
                headline(&rb, &fight->rows[k]);
    /* a variant's changes, each alone, as they move the fight most */
    for (size_t i = 0; i < r->nsections; i++) {
        const fray_report_section *c = &r->sections[i];
        if (strcmp(c->title, PROFILE_CHANGES_TITLE) || !c->nrows)
            continue;
        report_row(&rb, "each change alone", NULL, "(the one that moves the fight most first)");
        report_differs(&rb, false);
        for (size_t k = 0; k < c->nrows; k++) {
            text_buf label;
            text_init(&label);
            text_add(&label, "  %s", c->rows[k].label);
            report_row(&rb, label.s, c->rows[k].a, c->rows[k].b);
            report_flag(&rb, c->rows[k].differs);
            text_free(&label);
        }
    }
    if (fight && !fight->nrows) /* it could not be played: its note says why */
        report_row(&rb, "reference fight", "not played", "not played");
    section_rows(&rb, r, 0, play);
    section_rows(&rb, r, play, r->nsections);
    if (!r->differences)
        report_row(&rb, "differences", "none", "none");
    size_t differences = r->differences;
    for (size_t i = 0; i < r->nsections; i++)
        copy_section(&rb, &r->sections[i]);
    fray_report *out = report_end(&rb);
    if (out)
        out->differences = differences; /* the summary's rows count none of their own */
    return out;
}
