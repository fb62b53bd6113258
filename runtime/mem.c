#include "runtime/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Not thread-safe by design: a fray context is single-threaded, and these
 * counters exist for tests. */
static long fail_countdown = -1;
static size_t live_bytes;
static size_t ceiling = SIZE_MAX;
static bool ceiling_hit;

void mem_set_ceiling(size_t bytes)
{
    ceiling = bytes;
}

bool mem_ceiling_reached(void)
{
    bool hit = ceiling_hit;
    ceiling_hit = false;
    return hit;
}

void mem_fail_after(long countdown)
{
    fail_countdown = countdown;
}
size_t mem_live_bytes(void)
{
    return live_bytes;
}

void *mem_realloc(void *ptr, size_t old_size, size_t new_size)
{
    if (new_size == 0) {
        free(ptr);
        live_bytes -= old_size;
        return NULL;
    }
    if (fail_countdown == 0)
        return NULL;
    if (new_size > old_size && new_size - old_size > ceiling - (live_bytes < ceiling ? live_bytes : ceiling)) {
        ceiling_hit = true;
        return NULL;
    }
    if (fail_countdown > 0)
        fail_countdown--;
    void *p = realloc(ptr, new_size);
    if (p) {
        live_bytes -= old_size;
        live_bytes += new_size;
    }
    return p;
}

void *mem_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = (n && size) ? n * size : 1;
    void *p = mem_alloc(bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

char *mem_strndup(const char *s, size_t len)
{
    char *p = mem_alloc(len + 1);
    if (!p)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void mem_strfree(char *s)
{
    if (s)
        mem_free(s, strlen(s) + 1);
}

void *mem_grow(void *ptr, size_t elem_size, size_t *cap, size_t need)
{
    if (need <= *cap)
        return ptr;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem_size)
            return NULL;
        ncap *= 2;
    }
    void *p = mem_realloc(ptr, *cap * elem_size, ncap * elem_size);
    if (p)
        *cap = ncap;
    return p;
}
