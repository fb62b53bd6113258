/* text: a string built piece by piece that grows as it needs to, so that a
 * line naming a long citation or a hundred creatures is never cut short.
 * Short texts live in the structure itself; longer ones through the one
 * allocator. Out of memory, what cannot be added is dropped and the text
 * ends in "..." so that a reader sees it was cut (text.cut says so too). */
#ifndef FRAY_TEXT_H
#define FRAY_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct text_buf {
    char *s;    /* NUL-terminated; points at room until the text outgrows it */
    size_t len; /* bytes before the NUL */
    size_t cap; /* bytes s can hold, NUL included */
    bool cut;   /* something was dropped for want of memory */
    char room[192];
} text_buf;

/* Start an empty text. A text must not be copied once started (s may point
 * into its own room); pass it by pointer. */
void text_init(text_buf *t);
/* Append formatted text, as printf would write it. */
void text_add(text_buf *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void text_addv(text_buf *t, const char *fmt, va_list ap);
/* Append a string, or its first n bytes. */
void text_put(text_buf *t, const char *s);
void text_putn(text_buf *t, const char *s, size_t n);
/* Give `to` what `from` holds (to's old contents are given back); `from`
 * is left empty. */
void text_move(text_buf *to, text_buf *from);
/* Forget the contents and keep the memory. */
void text_clear(text_buf *t);
/* Give back what the text holds; it may be started again with text_init. */
void text_free(text_buf *t);
/* The columns UTF-8 text takes on a terminal: a column a character (its
   first byte; the bytes that continue one take none), to line up tables. */
int text_columns(const char *s);

#endif
