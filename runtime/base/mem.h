/* mem: the one allocator. Every allocation in libfray goes through
 * mem_realloc so that tests can fail the Nth allocation and count leaks. */
#ifndef FRAY_MEM_H
#define FRAY_MEM_H

#include <stdbool.h>
#include <stddef.h>

/* Resize a block. new_size == 0 frees it (NULL: nothing) and returns NULL.
 * Returns NULL on failure (real or injected); the old block is then left
 * untouched. */
void *mem_realloc(void *ptr, size_t old_size, size_t new_size);

#define mem_alloc(size) mem_realloc(NULL, 0, (size))
#define mem_free(ptr, size) ((void)mem_realloc((ptr), (size), 0))
#define MEM_NEW(type) ((type *)mem_calloc(1, sizeof(type)))
#define MEM_NEW_ARRAY(type, n) ((type *)mem_calloc((n), sizeof(type)))

/* Zeroed allocation with overflow check on n * size. */
void *mem_calloc(size_t n, size_t size);
/* Copy of len bytes plus a NUL terminator. */
char *mem_strndup(const char *s, size_t len);
void mem_strfree(char *s);

/* A copy of the first `bytes` bytes of p, for copying a structure whole
 * (fray_clone): NULL when p is NULL or bytes 0, and NULL with *ok set false
 * when out of memory, or when *ok is false already (a copy that has failed
 * takes nothing more). */
void *mem_dup(const void *p, size_t bytes, bool *ok);
/* Grow an array of elem_size elements to hold at least need; doubles. */
void *mem_grow(void *ptr, size_t elem_size, size_t *cap, size_t need);

/* A budget: from now on, this thread may hold at most `bytes` more than it
 * does (SIZE_MAX: no budget); an allocation past it fails, and is noted so
 * that the error can name the limit. */
void mem_set_budget(size_t bytes);
/* What one command, or one compile, may take by default (--limit memory). */
#define MEM_DEFAULT_BUDGET ((size_t)1 << 30)
/* The budget in force, to put back once a budget of one part is done. */
typedef struct mem_budget {
    bool on;
    size_t end;
} mem_budget;
mem_budget mem_get_budget(void);
void mem_restore_budget(mem_budget b);
/* Whether an allocation failed at the ceiling since the last call; clears. */
bool mem_ceiling_reached(void);

/* Test hooks: fail the allocation after `countdown` successful ones
 * (negative = never), and read the number of live bytes. */
void mem_fail_after(long countdown);
size_t mem_live_bytes(void);

#endif
