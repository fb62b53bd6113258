/* sim_parts: a slice of a simulation's runs (`fray sim --runs FROM..TO
 * --format part`) written as lines of text, and parts read back and added
 * up (`fray sim --merge PART...`). Every figure of the report is a sum over
 * runs (wins, rounds, damage and its squares, firings), and run i plays
 * seed + i whichever process plays it, so the parts of a simulation merged
 * give exactly the report one process would print. */
#ifndef FRAY_CLI_SIM_PARTS_H
#define FRAY_CLI_SIM_PARTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fray.h"

/* What a part is of: the same for every part of one simulation. */
typedef struct sim_whole {
    char *scenario, *other, *vs; /* other and vs: NULL when none */
    uint64_t seed;               /* of run 0 */
    int threads, n;              /* results: 1, or 2 side by side */
} sim_whole;

/* Writes one part: the results of runs from..to of the whole. */
void sim_part_write(FILE *out, const sim_whole *w, uint64_t from, uint64_t to, const fray_sim_result *const *rs);

/* Reads lines of parts, saying where it goes wrong. */
typedef struct sim_reader {
    FILE *in;
    const char *path;
    const char *command; /* "sim" or "sweep", for its messages */
    char *line;          /* the last line read (free it) */
    size_t cap;
    long lineno;
} sim_reader;

/* Opens path for rd, or says why it cannot (a folder is not a part). */
bool sim_reader_open(sim_reader *rd, const char *path, const char *command);

/* The next line, without its newline, and its text after `word ` in
 *rest; false at the end or when the line is another word. */
bool sim_read_word(sim_reader *rd, const char *word, const char **rest);

/* Parts added up one by one (a sweep's file holds one for each value). */
typedef struct sim_slice {
    uint64_t from, to;
    char where[320]; /* the file and line it ends at, for what is said of it */
} sim_slice;
typedef struct sim_merge {
    sim_whole w;
    fray_sim_result *rs[2];
    sim_slice *slices;
    size_t nslices, cap;
} sim_merge;
/* Reads one part where the reader stands, added into m; false after
   saying why on stderr. */
bool sim_merge_read(sim_merge *m, sim_reader *rd);
/* Whether the parts read hold every run once (else says which do not),
   with the results in their report's order. */
bool sim_merge_finish(sim_merge *m, const char *command);
void sim_merge_free(sim_merge *m);

/* Reads every part and adds them up into rs[0..w->n), which the caller
   frees with sim_merged_free (and w's strings with sim_whole_free); false
   after saying why on stderr (a file that is no part, parts of different
   simulations, runs in two parts or in none). */
bool sim_parts_merge(char *const *paths, int nparts, sim_whole *w, fray_sim_result *rs[2]);
void sim_merged_free(fray_sim_result *r);
void sim_whole_free(sim_whole *w);

#endif
