/* report: building a fray_report (fray.h) section by section, row by row,
 * with every string copied in. An allocation failure sets `oom` and the
 * rest of the building does nothing. */
#ifndef FRAY_REPORT_H
#define FRAY_REPORT_H

#include <stdbool.h>

#include "fray.h"

typedef struct report_builder {
    fray_report *r;
    size_t sections_cap, rows_cap; /* rows_cap: of the last section */
    bool oom;
} report_builder;

bool report_begin(report_builder *rb, const char *a, const char *b);
void report_section(report_builder *rb, const char *title, const char *note);
/* A row; it differs when a and b are not the same text. */
void report_row(report_builder *rb, const char *label, const char *a, const char *b);
void report_prob_row(report_builder *rb, const char *label, const char *a, const char *b, double pa, double pb);
/* Marks the last section: part of the summary, and worth reading whole. */
void report_mark(report_builder *rb, bool summary, bool whole);
/* Sets whether the last row differs (a summary's row says how much). */
void report_differs(report_builder *rb, bool differs);
/* Marks the last row as report_differs does, without counting it among
   the differences: a figure worked out from them (a change's effect). */
void report_flag(report_builder *rb, bool flagged);
/* The report, its last section trimmed; NULL after an allocation failure. */
fray_report *report_end(report_builder *rb);

#endif
