/* keymap: see keymap.h. */
#include "runtime/core/keymap.h"

#include "runtime/base/mem.h"

/* splitmix64's finalizer: string ids and offsets are small and dense, so
   their low bits alone would cluster. */
static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9u;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebu;
    key ^= key >> 31;
    return (size_t)key & (cap - 1);
}

static size_t find(const keymap *m, uint64_t key)
{
    size_t i = slot_of(key, m->cap);
    while (m->values[i] >= 0 && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static bool grow(keymap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    keymap bigger = {.keys = MEM_NEW_ARRAY(uint64_t, cap), .values = mem_alloc(cap * sizeof(int32_t)), .cap = cap};
    if (!bigger.keys || !bigger.values) {
        if (bigger.keys)
            mem_free(bigger.keys, cap * sizeof(uint64_t));
        if (bigger.values)
            mem_free(bigger.values, cap * sizeof(int32_t));
        return false;
    }
    for (size_t i = 0; i < cap; i++)
        bigger.values[i] = -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->values[i] >= 0) {
            size_t at = find(&bigger, m->keys[i]);
            bigger.keys[at] = m->keys[i];
            bigger.values[at] = m->values[i];
        }
    }
    bigger.n = m->n;
    keymap_free(m);
    *m = bigger;
    return true;
}

bool keymap_put(keymap *m, uint64_t key, int32_t value)
{
    if ((m->n + 1) * 2 > m->cap && !grow(m))
        return false;
    size_t at = find(m, key);
    m->n += m->values[at] < 0;
    m->keys[at] = key;
    m->values[at] = value;
    return true;
}

int32_t keymap_get(const keymap *m, uint64_t key)
{
    return m->cap ? m->values[find(m, key)] : -1;
}

keymap keymap_clone(const keymap *from, bool *ok)
{
    keymap m = *from;
    m.keys = mem_dup(from->keys, from->cap * sizeof(uint64_t), ok);
    m.values = mem_dup(from->values, from->cap * sizeof(int32_t), ok);
    if (m.cap && (!m.keys || !m.values)) {
        if (m.keys)
            mem_free(m.keys, m.cap * sizeof(uint64_t));
        if (m.values)
            mem_free(m.values, m.cap * sizeof(int32_t));
        return (keymap){0};
    }
    return m;
}

void keymap_free(keymap *m)
{
    if (m->cap) {
        mem_free(m->keys, m->cap * sizeof(uint64_t));
        mem_free(m->values, m->cap * sizeof(int32_t));
    }
    *m = (keymap){0};
}
