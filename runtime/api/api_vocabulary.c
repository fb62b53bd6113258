/* api_vocabulary: fray_vocabulary, every word of the language a user may
 * ask about (lang/vocabulary.c), as the public interface gives it. */
#include <stdio.h>
#include <string.h>

#include "fray.h"
#include "lang/vocabulary.h"

/* "has(c, condition): c is in ..." -> form "has(c, condition)", meaning
   the rest; a clause's "ties KEY, ... (a formula, ...)" -> the form and
   the words in parentheses at its end. */
static void split_meaning(const char *text, char *form, size_t form_cap, const char **meaning)
{
    const char *colon = strstr(text, "): ");
    if (colon) {
        size_t n = (size_t)(colon + 1 - text);
        snprintf(form, form_cap, "%.*s", (int)n, text);
        *meaning = colon + 3;
        return;
    }
    snprintf(form, form_cap, "%s", text);
    *meaning = "";
}

static void split_usage(const char *usage, char *form, size_t form_cap, char *meaning, size_t meaning_cap)
{
    size_t n = strlen(usage);
    const char *open = NULL;
    if (n > 0 && usage[n - 1] == ')') {
        int depth = 0;
        for (const char *p = usage + n - 1; p >= usage; p--) {
            depth += *p == ')' ? 1 : *p == '(' ? -1 : 0;
            if (depth == 0) {
                open = p;
                break;
            }
        }
    }
    if (open && open > usage && open[-1] == ' ') {
        snprintf(form, form_cap, "%.*s", (int)(open - 1 - usage), usage);
        snprintf(meaning, meaning_cap, "%.*s", (int)(usage + n - 1 - (open + 1)), open + 1);
    } else {
        snprintf(form, form_cap, "%s", usage);
        meaning[0] = '\0';
    }
}

void fray_vocabulary(fray_word_fn fn, void *user)
{
    char form[256], meaning[256];
    for (int d = 0; d < vocabulary_ndecls; d++) {
        const decl_vocabulary *dv = &vocabulary_decls[d];
        fn(user, &(fray_word){FRAY_WORD_DECLARATION, dv->word, dv->form, dv->meaning, NULL});
        for (int c = 0; dv->clauses && c < *dv->nclauses; c++) {
            split_usage(dv->clauses[c].usage, form, sizeof form, meaning, sizeof meaning);
            fn(user, &(fray_word){FRAY_WORD_CLAUSE, dv->clauses[c].word, form, meaning, dv->word});
        }
    }
    for (int i = 0; i < vocabulary_ncommands; i++)
        fn(user, &(fray_word){FRAY_WORD_COMMAND, vocabulary_commands[i].word, vocabulary_commands[i].form,
                              vocabulary_commands[i].meaning, NULL});
    for (int i = 0; i < vocabulary_nbuiltins; i++) {
        const char *m;
        split_meaning(vocabulary_builtins[i].meaning, form, sizeof form, &m);
        fn(user, &(fray_word){FRAY_WORD_FUNCTION, vocabulary_builtins[i].word, form, m, NULL});
    }
    for (int i = 0; i < vocabulary_nevents; i++)
        fn(user, &(fray_word){FRAY_WORD_EVENT, vocabulary_events[i].word, vocabulary_events[i].form,
                              vocabulary_events[i].meaning, NULL});
}
