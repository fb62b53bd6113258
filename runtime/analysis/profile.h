/* profile: reference fights for `fray diff`. A profile is a directory with
 * one scenario per rule system (DIR/SYSTEM.rules), each declaring two
 * creatures named attacker and defender, with tactics, on the map. For
 * each system, the turn of each is played once per combination of its
 * dice (an rng oracle walks them all), which gives the exact chance that
 * its first check meets its target, that each trigger fires, and of each
 * total of damage; then a chain over both creatures' hit points gives the
 * chance each wins the fight. Where a turn changes more than hit points,
 * the fight is simulated instead, and the report says so. */
#ifndef FRAY_PROFILE_H
#define FRAY_PROFILE_H

#include "fray.h"
#include "runtime/analysis/report.h"

/* The section of a variant's changes, each played alone on its base. */
#define PROFILE_CHANGES_TITLE "Each change alone"

fray_status profile_compare(report_builder *rb, fray *a, fray *b, const fray_diff_options *o);
/* Whether DIR has a fight for the system (or for the system it extends). */
struct program;
bool profile_found(const char *dir, const struct program *p);

#endif
