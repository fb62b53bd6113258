/* parse_util: parse a string for a unit test and keep its diagnostics. */
#ifndef FRAY_TEST_PARSE_UTIL_H
#define FRAY_TEST_PARSE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/parse.h"

#define PARSED_MAX_DIAGS 16

typedef struct parsed {
    source *src;
    ast_arena *ar;
    node *root;
    diag_sink sink;
    int ndiags;
    char msgs[PARSED_MAX_DIAGS][256];
    span where[PARSED_MAX_DIAGS];
} parsed;

static void collect(void *user, const diag *d)
{
    parsed *p = user;
    if (p->ndiags < PARSED_MAX_DIAGS) {
        snprintf(p->msgs[p->ndiags], sizeof p->msgs[0], "%s", d->message);
        p->where[p->ndiags] = d->where;
    }
    p->ndiags++;
}

/* The tree is NULL only when out of memory. */
static parsed *parse_text(const char *text)
{
    parsed *p = calloc(1, sizeof *p);
    p->src = source_new("t.rules", text, strlen(text));
    p->ar = ast_arena_new();
    p->sink = (diag_sink){.fn = collect, .user = p};
    p->root = parse_program(p->src, 0, p->ar, &p->sink);
    return p;
}

static void done(parsed *p)
{
    ast_arena_free(p->ar);
    source_free(p->src);
    free(p);
}

#endif
