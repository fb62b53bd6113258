/* keymap: a hash map from 64-bit keys to non-negative ints, for lookups by
 * name or place that would otherwise scan a table: with them, compiling a
 * file grows linearly in its declarations. Open addressing, linear probing,
 * at most half full. */
#ifndef FRAY_KEYMAP_H
#define FRAY_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct keymap {
    uint64_t *keys;
    int32_t *values; /* -1: an empty slot */
    size_t cap, n;
} keymap;

/* Sets key to value (value >= 0), replacing what it had. False when out
 * of memory; the map is then as before. */
bool keymap_put(keymap *m, uint64_t key, int32_t value);
/* The value of key, or -1. */
int32_t keymap_get(const keymap *m, uint64_t key);
/* A copy of the map, its own; an empty map with *ok set false when out of
 * memory (or when *ok is false already). */
keymap keymap_clone(const keymap *from, bool *ok);
void keymap_free(keymap *m);

#endif
