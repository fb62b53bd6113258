/* summary: what opens a `fray diff` report. The reference fight's
 * headline figures, each with what changed between the two systems (the
 * difference, and the ratio of a figure that is not a share), then each
 * section that differs, the rules of play first (economy, initiative,
 * rounds, the end of a fight, space, formulas) and the declarations after,
 * with how many of its rows differ and which. */
#ifndef FRAY_SUMMARY_H
#define FRAY_SUMMARY_H

#include "fray.h"

/* A copy of r with the summary before its sections, the first `play` of
   them being the rules of play; NULL when out of memory. r is left as it
   is. */
fray_report *summary_prepend(const fray_report *r, size_t play);

#endif
