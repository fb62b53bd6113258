/* parse: source text -> AST, reporting every syntax error it can find. */
#ifndef FRAY_PARSE_H
#define FRAY_PARSE_H

#include "lang/ast.h"
#include "lang/diag.h"

/* Parses src into a PROGRAM node allocated in ar. Syntax errors go to sink;
 * the returned tree holds whatever parsed (NULL only when out of memory).
 * src_index is stored in every span. Safe to call from several threads or
 * nested: there is no global state. */
node *parse_program(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink);
/* The same, for text compiled into known: a count of one of its periods
 * (`2 scenes`) is a quantity. */
struct program;
node *parse_program_in(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink,
                       const struct program *known);

/* Parses src as a single expression (for `fray eval` and the REPL). */
node *parse_expression(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink);
node *parse_expression_in(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink,
                          const struct program *known);

/* True if the parse of src failed only because input ended too early (an
 * open brace or parenthesis): the REPL then reads another line. */
bool parse_is_incomplete(const source *src);

#endif
