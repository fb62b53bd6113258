#include "runtime/base/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Per thread: a fray context lives in one thread (`fray sim` runs one per
 * thread), and a command's memory budget counts that thread's bytes only.
 * A block freed by another thread than the one that allocated it moves
 * bytes between the two counts: they are kept modulo 2^N, so budgets,
 * which are differences, stay right. */
static _Thread_local long fail_countdown = -1;
static _Thread_local size_t live_bytes;
static _Thread_local bool budget_on;
static _Thread_local size_t budget_end; /* live_bytes may not pass it */
static _Thread_local bool ceiling_hit;

void mem_set_budget(size_t bytes)
{
    budget_on = bytes != SIZE_MAX;
    budget_end = live_bytes + bytes;
}

mem_budget mem_get_budget(void)
{
    return (mem_budget){budget_on, budget_end};
}

void mem_restore_budget(mem_budget b)
{
    budget_on = b.on;
    budget_end = b.end;
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
        if (ptr) { /* freeing nothing takes nothing off the count */
            free(ptr);
            live_bytes -= old_size;
        }
        return NULL;
    }
    if (fail_countdown == 0)
        return NULL;
    if (budget_on && new_size > old_size && new_size - old_size > budget_end - live_bytes) {
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

void *mem_dup(const void *p, size_t bytes, bool *ok)
{
    if (!p || !bytes)
        return NULL;
    void *copy = *ok ? mem_alloc(bytes) : NULL;
    if (!copy) {
        *ok = false;
        return NULL;
    }
    return memcpy(copy, p, bytes);
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
