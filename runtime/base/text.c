/* text: see text.h. */
#include "runtime/base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"

#define TEXT_CUT_MARK "..."

void text_init(text_buf *t)
{
    t->s = t->room;
    t->s[0] = '\0';
    t->len = 0;
    t->cap = sizeof t->room;
    t->cut = false;
}

/* Make room for `more` bytes after len, NUL aside. False when it cannot. */
static bool text_reserve(text_buf *t, size_t more)
{
    if (t->cut)
        return false; /* once cut, nothing may follow the mark */
    if (more < t->cap - t->len)
        return true;
    size_t want = t->cap;
    while (want - t->len <= more) {
        if (want > ((size_t)-1) / 2)
            return false;
        want *= 2;
    }
    char *grown = t->s == t->room ? mem_alloc(want) : mem_realloc(t->s, t->cap, want);
    if (!grown)
        return false;
    if (t->s == t->room)
        memcpy(grown, t->room, t->len + 1);
    t->s = grown;
    t->cap = want;
    return true;
}

/* Out of memory: end what is there with the mark, within what is held. */
static void text_mark_cut(text_buf *t)
{
    if (t->cut)
        return;
    t->cut = true;
    size_t mark = sizeof TEXT_CUT_MARK - 1;
    if (t->cap <= mark)
        return;
    if (t->len + mark >= t->cap)
        t->len = t->cap - 1 - mark;
    memcpy(t->s + t->len, TEXT_CUT_MARK, mark + 1);
    t->len += mark;
}

void text_putn(text_buf *t, const char *s, size_t n)
{
    if (!text_reserve(t, n)) {
        text_mark_cut(t);
        return;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

void text_put(text_buf *t, const char *s)
{
    text_putn(t, s, strlen(s));
}

void text_addv(text_buf *t, const char *fmt, va_list ap)
{
    if (t->cut)
        return;
    va_list again;
    va_copy(again, ap);
    int need = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    if (need >= 0 && (size_t)need >= t->cap - t->len) {
        t->s[t->len] = '\0';
        if (text_reserve(t, (size_t)need))
            vsnprintf(t->s + t->len, t->cap - t->len, fmt, again);
        else {
            text_mark_cut(t);
            need = -1;
        }
    }
    va_end(again);
    if (need < 0) { /* an encoding error, or cut: nothing of it is kept */
        t->s[t->len] = '\0';
        return;
    }
    t->len += (size_t)need;
}

void text_add(text_buf *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_addv(t, fmt, ap);
    va_end(ap);
}

void text_move(text_buf *to, text_buf *from)
{
    text_free(to);
    if (from->s == from->room) {
        memcpy(to->room, from->room, from->len + 1);
        to->len = from->len;
        to->cut = from->cut;
    } else {
        *to = *from;
    }
    text_init(from);
}

void text_clear(text_buf *t)
{
    t->len = 0;
    t->s[0] = '\0';
    t->cut = false;
}

void text_free(text_buf *t)
{
    if (t->s != t->room)
        mem_free(t->s, t->cap);
    text_init(t);
}

int text_columns(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}
