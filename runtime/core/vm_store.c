/* vm_store: lists, and the stores of what a command makes at run time:
 * scratch values dropped when the command ends, kept ones copied out of
 * them, all within the limits of a command. */
#include "runtime/core/vm_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/dice/dist.h"

uint32_t vm_list_depth(const vm *v, value x)
{
    const vm_store *st = x.type == V_LIST ? vm_store_of(v, x) : NULL;
    return st && (size_t)x.num < st->nlists ? st->lists[x.num].depth : 0;
}

/* A list as deep as `depth`, or the error that says it may not be: every
   walk of a list (printing, comparing, keeping it) goes once down a level,
   so the nesting limit that bounds the rules' text bounds them too. */
bool vm_nesting_ok(vm *v, uint32_t depth, span at)
{
    if (depth <= (uint32_t)v->limits.nesting)
        return true;
    return vm_error(v, at, "lists nested too deeply (limit is %d levels; see --limit nesting=N)", v->limits.nesting);
}

static bool list_limit_reached(vm *v, span at)
{
    return vm_error(v, at, "list memory limit reached (%zu values; see --limit list-values=N)", v->limits.list_values);
}

static bool store_list(vm *v, vm_store *st, uint8_t home, const value *items, size_t n, span at, value *out)
{
    uint32_t depth = 1;
    for (size_t i = 0; items && i < n; i++) {
        uint32_t d = vm_list_depth(v, items[i]);
        if (d >= depth)
            depth = d + 1;
    }
    if (!vm_nesting_ok(v, depth, at))
        return false;
    if (st->nitems + n > v->limits.list_values)
        return list_limit_reached(v, at);
    value *grown = mem_grow(st->items, sizeof(value), &st->items_cap, st->nitems + n);
    if (!grown && n)
        return vm_error(v, at, "out of memory");
    if (grown)
        st->items = grown;
    vm_list *lists = mem_grow(st->lists, sizeof(vm_list), &st->lists_cap, st->nlists + 1);
    if (!lists)
        return vm_error(v, at, "out of memory");
    st->lists = lists;
    for (size_t i = 0; i < n; i++)
        st->items[st->nitems + i] = items ? items[i] : value_nil();
    st->lists[st->nlists] = (vm_list){(uint32_t)st->nitems, (uint32_t)n, depth};
    st->nitems += n;
    *out = value_ref(V_LIST, home, (int64_t)st->nlists++);
    return true;
}

bool vm_make_list(vm *v, const value *items, size_t n, span at, value *out)
{
    return store_list(v, &v->scratch, HOME_VM, items, n, at, out);
}

bool vm_gather_add(vm *v, vm_gather *g, value x, span at)
{
    /* the list it becomes will be a scratch list: held to the limit now */
    if (v->scratch.nitems + g->n + 1 > v->limits.list_values)
        return list_limit_reached(v, at);
    value *grown = mem_grow(g->items, sizeof(value), &g->cap, g->n + 1);
    if (!grown)
        return vm_error(v, at, "out of memory");
    g->items = grown;
    g->items[g->n++] = x;
    return true;
}

bool vm_gather_list(vm *v, vm_gather *g, span at, value *out)
{
    bool ok = vm_make_list(v, g->items, g->n, at, out);
    vm_gather_drop(g);
    return ok;
}

void vm_gather_drop(vm_gather *g)
{
    if (g->items)
        mem_free(g->items, g->cap * sizeof(value));
    *g = (vm_gather){0};
}

value *vm_list_slots(vm *v, value list, size_t *n)
{
    return (value *)vm_list_items(v, list, n);
}

const value *vm_list_items(const vm *v, value list, size_t *n)
{
    const vm_store *st = list.type == V_LIST ? vm_store_of(v, list) : NULL;
    if (!st || (size_t)list.num >= st->nlists) {
        *n = 0;
        return NULL;
    }
    *n = st->lists[list.num].len;
    if (!st->items)
        return NULL; /* only empty lists so far: nothing to point into */
    return st->items + st->lists[list.num].start;
}

static bool store_string(vm *v, vm_store *st, uint8_t home, const char *s, size_t len, span at, value *out)
{
    char *chars = mem_grow(st->chars, 1, &st->chars_cap, st->nchars + len + 1);
    if (!chars)
        return vm_error(v, at, "out of memory");
    st->chars = chars;
    size_t *strs = mem_grow(st->strs, sizeof(size_t), &st->strs_cap, st->nstrs + 1);
    if (!strs)
        return vm_error(v, at, "out of memory");
    st->strs = strs;
    memcpy(st->chars + st->nchars, s, len);
    st->chars[st->nchars + len] = '\0';
    st->strs[st->nstrs] = st->nchars;
    st->nchars += len + 1;
    *out = value_ref(V_STR, home, (int64_t)st->nstrs++);
    return true;
}

bool vm_make_string(vm *v, const char *s, size_t len, span at, value *out)
{
    if (len > (size_t)v->limits.string_bytes)
        return vm_error(v, at, "string too long (%zu bytes; limit is %d; see --limit string-bytes=N)", len,
                        v->limits.string_bytes);
    return store_string(v, &v->scratch, HOME_VM, s, len, at, out);
}

const char *vm_string(const vm *v, value x)
{
    if (x.type != V_STR && x.type != V_WORD)
        return "";
    if (x.home == HOME_PROGRAM)
        return program_string(v->p, (int)x.num);
    const vm_store *st = vm_store_of(v, x);
    if (!st || x.num < 0 || (size_t)x.num >= st->nstrs)
        return "";
    return st->chars + st->strs[x.num];
}

static bool keep_value(vm *v, value x, span at, value *out, int depth);

/* Out of keep_value's frame, which a list takes once a level. */
static __attribute__((noinline)) bool keep_dice(vm *v, value x, span at, value *out)
{
    const dexpr *d = vm_dexpr(v, x);
    dexpr copy = *d; /* store_dexpr may move the table d points into */
    return vm_store_dexpr(v, &v->kept, HOME_KEPT, &copy, at, out);
}

bool vm_keep(vm *v, value x, span at, value *out)
{
    return keep_value(v, x, at, out, 1);
}

/* depth: how many lists down x is, against the nesting limit (met when
   the list was made: this only holds if the limit came down since) */
static bool keep_value(vm *v, value x, span at, value *out, int depth)
{
    *out = x;
    if (x.type == V_ROLL)
        return true; /* its breakdown lives in the ring of rolls while it lasts (roll_of checks) */
    if (x.home != HOME_VM)
        return true;
    if (x.type == V_DISTRIB)
        return vm_dist_keep(v, x, at, out);
    if (x.type == V_DICE)
        return keep_dice(v, x, at, out);
    if (x.type == V_STR) {
        const char *text = vm_string(v, x);
        size_t len = strlen(text), off = (size_t)(text - v->scratch.chars);
        /* store_string may move the scratch chars: copy from the offset */
        char *copy = mem_alloc(len + 1);
        if (!copy)
            return vm_error(v, at, "out of memory");
        memcpy(copy, v->scratch.chars + off, len + 1);
        bool ok = store_string(v, &v->kept, HOME_KEPT, copy, len, at, out);
        mem_free(copy, len + 1);
        return ok;
    }
    if (x.type == V_LIST) {
        if (!vm_nesting_ok(v, (uint32_t)depth, at))
            return false;
        size_t n;
        const value *items = vm_list_items(v, x, &n);
        value *copy = n ? mem_alloc(n * sizeof(value)) : NULL;
        if (n && !copy)
            return vm_error(v, at, "out of memory");
        if (n)
            memcpy(copy, items, n * sizeof(value));
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++)
            ok = keep_value(v, copy[i], at, &copy[i], depth + 1);
        ok = ok && store_list(v, &v->kept, HOME_KEPT, copy, n, at, out);
        if (copy)
            mem_free(copy, n * sizeof(value));
        return ok;
    }
    return true;
}

void vm_begin_command(vm *v)
{
    v->scratch.ndice = v->scratch.nitems = v->scratch.nlists = v->scratch.nchars = v->scratch.nstrs = 0;
    vm_dist_free_store(&v->scratch);
    v->steps_left = vm_step_budget(v);
    v->failed = false;
    /* what the command may add to what is held now */
    mem_set_budget(v->limits.memory);
    mem_ceiling_reached();
}

void vm_end_command(vm *v)
{
    (void)v;
    mem_set_budget(SIZE_MAX);
}

vm_mark vm_scratch_mark(const vm *v)
{
    const vm_store *st = &v->scratch;
    return (vm_mark){st->ndice, st->nitems, st->nlists, st->ndists, st->nchars, st->nstrs};
}

void vm_scratch_release(vm *v, vm_mark m)
{
    vm_store *st = &v->scratch;
    for (size_t i = m.ndists; i < st->ndists; i++)
        dist_free(st->dists[i]);
    st->ndice = m.ndice;
    st->nitems = m.nitems;
    st->nlists = m.nlists;
    st->ndists = m.ndists;
    st->nchars = m.nchars;
    st->nstrs = m.nstrs;
}
