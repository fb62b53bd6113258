/* vocabulary: every word of the language a user may ask about, in one
 * place: the declarations with the clauses each accepts (taken from the
 * declaration compilers' own tables, so help cannot drift from what the
 * compiler accepts), the play commands (runtime/core/commands.def), the
 * built-in functions (runtime/core/builtins.def) and the built-in events.
 * `fray help` prints from here; tests check that doc/language.md names
 * every entry. */
#ifndef FRAY_VOCABULARY_H
#define FRAY_VOCABULARY_H

#include "lang/decl.h"

typedef struct decl_vocabulary {
    const char *word; /* the keyword, or "space grid" for a variant */
    const char *form; /* how it is written */
    const char *meaning;
    const clause_rule *clauses; /* NULL: none (a body of statements, or a value) */
    const int *nclauses;
} decl_vocabulary;

extern const decl_vocabulary vocabulary_decls[];
extern const int vocabulary_ndecls;

typedef struct word_vocabulary {
    const char *word;
    const char *form;
    const char *meaning;
} word_vocabulary;

extern const word_vocabulary vocabulary_commands[];
extern const int vocabulary_ncommands;
extern const word_vocabulary vocabulary_builtins[];
extern const int vocabulary_nbuiltins;
extern const word_vocabulary vocabulary_events[];
extern const int vocabulary_nevents;

#endif
