#include "runtime/base/source.h"

#include <string.h>

#include "runtime/base/mem.h"

source *source_new(const char *name, const char *text, size_t len)
{
    source *s = MEM_NEW(source);
    if (!s)
        return NULL;
    s->bom = len >= 3 && memcmp(text, SOURCE_BOM, 3) == 0;
    if (s->bom) {
        text += 3;
        len -= 3;
    }
    s->name = mem_strndup(name, strlen(name));
    s->text = mem_strndup(text, len);
    s->len = len;
    s->line_starts = mem_grow(NULL, sizeof(uint32_t), &s->line_cap, 1);
    if (!s->name || !s->text || !s->line_starts) {
        source_free(s);
        return NULL;
    }
    s->line_starts[s->nlines++] = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '\n')
            continue;
        uint32_t *grown = mem_grow(s->line_starts, sizeof(uint32_t), &s->line_cap, s->nlines + 1);
        if (!grown) {
            source_free(s);
            return NULL;
        }
        s->line_starts = grown;
        s->line_starts[s->nlines++] = (uint32_t)(i + 1);
    }
    return s;
}

source *source_share(source *s)
{
    atomic_fetch_add_explicit(&s->shares, 1, memory_order_relaxed);
    return s;
}

void source_free(source *s)
{
    if (!s || atomic_fetch_sub_explicit(&s->shares, 1, memory_order_acq_rel) > 0)
        return; /* another holds it still */
    mem_strfree(s->name);
    if (s->text)
        mem_free(s->text, s->len + 1);
    if (s->line_starts)
        mem_free(s->line_starts, s->line_cap * sizeof(uint32_t));
    mem_free(s, sizeof *s);
}

void source_line_col(const source *s, uint32_t offset, int *line, int *col)
{
    size_t lo = 0, hi = s->nlines;
    while (hi - lo > 1) { /* last line start <= offset */
        size_t mid = (lo + hi) / 2;
        if (s->line_starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    *line = (int)lo + 1;
    int c = 1;
    for (uint32_t i = s->line_starts[lo]; i < offset && i < s->len; i++)
        if (((unsigned char)s->text[i] & 0xC0) != 0x80) /* count code points */
            c++;
    *col = c;
}

const char *source_line(const source *s, int line, size_t *len)
{
    if (line < 1 || (size_t)line > s->nlines) {
        *len = 0;
        return "";
    }
    uint32_t start = s->line_starts[line - 1];
    uint32_t end = (size_t)line < s->nlines ? s->line_starts[line] - 1 : (uint32_t)s->len;
    if (end > start && s->text[end - 1] == '\r')
        end--;
    *len = end - start;
    return s->text + start;
}

static const char *const decl_names[] = {
#define DECL_NAME(name, word) word,
    DECL_KINDS(DECL_NAME)
#undef DECL_NAME
};

const char *decl_kind_name(decl_kind k)
{
    return k < DK_COUNT ? decl_names[k] : "?";
}
