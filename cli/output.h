/* output: what the report-printing commands (prob, sim, diff) share: bars,
 * JSON strings, the terminal's width. */
#ifndef FRAY_CLI_OUTPUT_H
#define FRAY_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Standard output is a terminal that shows UTF-8 (for block bars). */
bool cli_utf8_terminal(void);
/* Prints a bar of fraction * width cells (in eighths with unicode blocks,
 * '#' otherwise) and returns the cells it took. */
int cli_bar(FILE *out, double fraction, int width, bool unicode);
/* Rows a table of outcomes (prob) or of fight lengths (sim) shows before
   it puts them in bins (unless --all): about a screen. */
#define CLI_MOST_ROWS 40
/* A width for bins that is 1, 2 or 5 times a power of ten, at least w. */
int64_t cli_round_width(int64_t w);
/* A quoted JSON string (on stdout; to out). */
void cli_json_string(const char *s);
void cli_json_string_to(FILE *out, const char *s);
/* A field of CSV on stdout: quoted when it holds a comma, a quote or a
   line break (nothing for NULL). */
void cli_csv_field(const char *s);
/* Prints text line by line without trailing blanks. */
void cli_print_trimmed(const char *text);
/* Columns of the terminal on standard output (COLUMNS, else 80). */
int cli_terminal_width(void);

#endif
