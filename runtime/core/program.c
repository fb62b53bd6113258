#include "runtime/core/program.h"

#include <stdatomic.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/core/rules.h"

program *program_new(void)
{
    program *p = MEM_NEW(program);
    if (!p)
        return NULL;
    p->system_name = p->system_title = p->system_base = -1;
    p->rules = rules_new();
    if (!p->rules) {
        mem_free(p, sizeof *p);
        return NULL;
    }
    /* the runtime's own events come first: EV_* are their indices */
    static const struct {
        const char *name;
        int nargs;
    } events[] = {
#define EVENT_ENTRY(id, word, n, form, meaning) {word, n},
        BUILTIN_EVENTS(EVENT_ENTRY)
#undef EVENT_ENTRY
    };
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        int name = program_intern(p, events[i].name, strlen(events[i].name));
        int ev = name < 0 ? -1 : rules_event(p->rules, name);
        if (ev < 0) {
            program_free(p);
            return NULL;
        }
        p->rules->events[ev].nargs = events[i].nargs;
        p->rules->events[ev].emitted = true;
    }
    return p;
}

struct program_keep {
    atomic_size_t refs; /* programs and keeps after it that hold it */
    program_keep *parent;
    source **sources;
    size_t nsources;
    chunk **chunks;
    size_t nchunks;
    int *commands; /* the commands added since the keep before */
    size_t ncommands;
    /* where its sources and chunks stand in the program's arrays (from),
       and how many sources, chunks and commands the program had when it
       settled (to) */
    size_t sources_from, chunks_from;
    size_t sources_to, chunks_to, commands_to;
};

static program_keep *keep_share(program_keep *k)
{
    if (k)
        atomic_fetch_add_explicit(&k->refs, 1, memory_order_relaxed);
    return k;
}

/* Lets go of k, and of what it alone kept (a loop, not a recursion: a
 * long session chains many). */
static void keep_release(program_keep *k)
{
    while (k && atomic_fetch_sub_explicit(&k->refs, 1, memory_order_acq_rel) == 1) {
        program_keep *parent = k->parent;
        for (size_t i = 0; i < k->nsources; i++)
            source_free(k->sources[i]);
        for (size_t i = 0; i < k->nchunks; i++)
            chunk_free(k->chunks[i]);
        if (k->sources)
            mem_free(k->sources, k->nsources * sizeof *k->sources);
        if (k->chunks)
            mem_free(k->chunks, k->nchunks * sizeof *k->chunks);
        if (k->commands)
            mem_free(k->commands, k->ncommands * sizeof *k->commands);
        mem_free(k, sizeof *k);
        k = parent;
    }
}

void program_settle(program *p)
{
    size_t ns = p->nsources - p->kept_sources, nc = p->nchunks - p->kept_chunks;
    if ((!ns && !nc) || p->only_kept)
        return; /* it holds nothing of its own */
    /* commands are only ever added: those since the keep before */
    size_t cfrom = p->kept ? p->kept->commands_to : 0, ncmd = p->ncommands - cfrom;
    program_keep *k = MEM_NEW(program_keep);
    bool ok = k != NULL;
    source **sources = ok && ns ? mem_dup(p->sources + p->kept_sources, ns * sizeof *sources, &ok) : NULL;
    chunk **chunks = ok && nc ? mem_dup(p->chunks + p->kept_chunks, nc * sizeof *chunks, &ok) : NULL;
    int *commands = ok && ncmd ? mem_dup(p->commands + cfrom, ncmd * sizeof *commands, &ok) : NULL;
    if (!ok) {
        if (sources)
            mem_free(sources, ns * sizeof *sources);
        if (chunks)
            mem_free(chunks, nc * sizeof *chunks);
        if (commands)
            mem_free(commands, ncmd * sizeof *commands);
        if (k)
            mem_free(k, sizeof *k);
        return;
    }
    k->commands = commands;
    k->ncommands = ncmd;
    /* its references move to k, which takes p's place on the keep before */
    atomic_init(&k->refs, 1);
    k->parent = p->kept;
    k->sources = sources;
    k->nsources = ns;
    k->chunks = chunks;
    k->nchunks = nc;
    k->sources_from = p->kept_sources;
    k->chunks_from = p->kept_chunks;
    k->sources_to = p->nsources;
    k->chunks_to = p->nchunks;
    k->commands_to = p->ncommands;
    p->kept = k;
    p->kept_sources = p->nsources;
    p->kept_chunks = p->nchunks;
}

void program_free(program *p)
{
    if (!p)
        return;
    for (size_t i = p->kept_sources; i < p->nsources; i++)
        source_free(p->sources[i]);
    keep_release(p->kept);
    if (p->sources)
        mem_free(p->sources, p->sources_cap * sizeof(source *));
    for (size_t i = 0; i < p->nstrings; i++)
        mem_strfree(p->strings[i]);
    if (p->strings)
        mem_free(p->strings, p->strings_cap * sizeof(char *));
    if (p->string_hash)
        mem_free(p->string_hash, p->hash_cap * sizeof(int32_t));
    if (p->dice)
        mem_free(p->dice, p->dice_cap * sizeof(dexpr));
    for (size_t i = p->kept_chunks; i < p->nchunks; i++)
        chunk_free(p->chunks[i]);
    if (p->chunks)
        mem_free(p->chunks, p->chunks_cap * sizeof(chunk *));
    if (p->decls)
        mem_free(p->decls, p->decls_cap * sizeof(decl));
    keymap_free(&p->decl_by_name);
    keymap_free(&p->decl_by_place);
    for (size_t i = 0; i < p->nenums; i++)
        if (p->enums[i].members)
            mem_free(p->enums[i].members, (size_t)p->enums[i].nmembers * sizeof(int));
    if (p->enums)
        mem_free(p->enums, p->enums_cap * sizeof(enum_info));
    if (p->globals)
        mem_free(p->globals, p->globals_cap * sizeof(int));
    if (p->global_typed)
        mem_free(p->global_typed, p->global_typed_cap * sizeof(bool));
    if (p->commands)
        mem_free(p->commands, p->commands_cap * sizeof(int));
    if (p->modules)
        mem_free(p->modules, p->modules_cap * sizeof(int));
    rules_free(p->rules);
    mem_free(p, sizeof *p);
}

/* An array of pointers to objects, each copied with copy (or shared); on
 * failure the array is NULL and empty, or holds NULL for each object not
 * copied. */
/* The same, the first `kept` only as pointers (a keep holds them). */
static void **copy_objects_from(void *const *from, size_t kept, size_t n, size_t cap, void *(*copy)(void *), bool *ok)
{
    if (!from || !cap)
        return NULL;
    void **to = *ok ? mem_calloc(cap, sizeof *to) : NULL;
    if (!to) {
        *ok = false;
        return NULL;
    }
    if (kept)
        memcpy(to, from, kept * sizeof *to);
    for (size_t i = kept; i < n && *ok; i++)
        *ok = (to[i] = copy(from[i])) != NULL;
    return to;
}

static void **copy_objects(void *const *from, size_t n, size_t cap, void *(*copy)(void *), bool *ok)
{
    return copy_objects_from(from, 0, n, cap, copy, ok);
}

static void *share_source(void *s)
{
    return source_share(s);
}

static void *share_chunk(void *c)
{
    return chunk_share(c);
}

static void *copy_string(void *s)
{
    return mem_strndup(s, strlen(s));
}

/* The arrays of sources, chunks and commands of a program that holds
 * them through its keeps alone (program_clone_kept), made p's: each keep
 * fills its part, the newest first, where no newer one has (one that came
 * after a program cut its arrays back begins below where the one before
 * it ended, and its own say what stands there now). */
static void arrays_from_keeps(program *p, const program *from, bool *ok)
{
    size_t ns = from->nsources, nc = from->nchunks, ncmd = from->ncommands;
    p->sources = *ok && ns ? mem_alloc(ns * sizeof *p->sources) : NULL;
    p->chunks = p->sources && nc ? mem_alloc(nc * sizeof *p->chunks) : NULL;
    p->commands = p->chunks && ncmd ? mem_alloc(ncmd * sizeof *p->commands) : NULL;
    if (!p->commands) {
        if (p->sources)
            mem_free(p->sources, ns * sizeof *p->sources);
        if (p->chunks)
            mem_free(p->chunks, nc * sizeof *p->chunks);
        p->sources = NULL;
        p->chunks = NULL;
        p->nsources = p->nchunks = p->ncommands = p->kept_sources = p->kept_chunks = 0;
        p->sources_cap = p->chunks_cap = p->commands_cap = 0;
        *ok = false;
        return;
    }
    size_t s_end = ns, c_end = nc;
    for (const program_keep *k = from->kept; k; k = k->parent) {
        for (size_t i = k->sources_from; i < k->sources_to && i < s_end; i++)
            p->sources[i] = k->sources[i - k->sources_from];
        for (size_t i = k->chunks_from; i < k->chunks_to && i < c_end; i++)
            p->chunks[i] = k->chunks[i - k->chunks_from];
        if (k->sources_from < s_end)
            s_end = k->sources_from;
        if (k->chunks_from < c_end)
            c_end = k->chunks_from;
        size_t cfrom = k->commands_to - k->ncommands;
        if (k->ncommands) /* a keep without commands may hold none at all */
            memcpy(p->commands + cfrom, k->commands, k->ncommands * sizeof *p->commands);
    }
    p->sources_cap = ns;
    p->chunks_cap = nc;
    p->commands_cap = ncmd;
}

/* Every table, as program_free frees them; sources and chunks, which
 * never change once made, shared. Without arrays, the arrays of sources,
 * chunks and commands are left empty, for program_take_arrays. */
program *program_clone_part(const program *from, bool arrays)
{
    program *p = MEM_NEW(program);
    if (!p)
        return NULL;
    bool ok = true;
    *p = *from;
    /* those the keep holds are shared by sharing it; the rest one by one */
    p->kept = keep_share(from->kept);
    p->only_kept = false;
    if (arrays && from->only_kept) {
        arrays_from_keeps(p, from, &ok);
        arrays = false;
    } else if (!arrays) {
        p->sources = NULL;
        p->chunks = NULL;
        p->commands = NULL;
    }
    if (arrays)
        p->sources = (source **)copy_objects_from((void *const *)from->sources, from->kept_sources, from->nsources,
                                                  from->sources_cap, share_source, &ok);
    p->strings =
        (char **)copy_objects((void *const *)from->strings, from->nstrings, from->strings_cap, copy_string, &ok);
    if (arrays)
        p->chunks = (chunk **)copy_objects_from((void *const *)from->chunks, from->kept_chunks, from->nchunks,
                                                from->chunks_cap, share_chunk, &ok);
    if (!p->sources)
        p->nsources = p->sources_cap = p->kept_sources = 0;
    if (!p->strings)
        p->nstrings = p->strings_cap = 0;
    if (!p->chunks)
        p->nchunks = p->chunks_cap = p->kept_chunks = 0;
    p->string_hash = mem_dup(from->string_hash, from->hash_cap * sizeof(int32_t), &ok);
    p->dice = mem_dup(from->dice, from->dice_cap * sizeof(dexpr), &ok);
    p->decls = mem_dup(from->decls, from->decls_cap * sizeof(decl), &ok);
    p->decl_by_name = keymap_clone(&from->decl_by_name, &ok);
    p->decl_by_place = keymap_clone(&from->decl_by_place, &ok);
    p->enums = mem_dup(from->enums, from->enums_cap * sizeof(enum_info), &ok);
    if (!p->enums)
        p->nenums = p->enums_cap = 0;
    for (size_t i = 0; i < p->nenums; i++)
        p->enums[i].members = mem_dup(from->enums[i].members, (size_t)from->enums[i].nmembers * sizeof(int), &ok);
    p->globals = mem_dup(from->globals, from->globals_cap * sizeof(int), &ok);
    p->global_typed = mem_dup(from->global_typed, from->global_typed_cap * sizeof(bool), &ok);
    if (arrays)
        p->commands = mem_dup(from->commands, from->commands_cap * sizeof(int), &ok);
    if (!p->commands)
        p->ncommands = p->commands_cap = 0;
    p->modules = mem_dup(from->modules, from->modules_cap * sizeof(int), &ok);
    p->rules = ok ? rules_clone(from->rules) : NULL;
    if (!p->rules) {
        program_free(p);
        return NULL;
    }
    return p;
}

program *program_clone(const program *from)
{
    return program_clone_part(from, true);
}

program *program_clone_kept(const program *from)
{
    const program_keep *k = from->kept;
    bool settled =
        from->only_kept || (k && from->kept_sources == from->nsources && from->kept_chunks == from->nchunks &&
                            k->sources_to == from->nsources && k->chunks_to == from->nchunks &&
                            k->commands_to == from->ncommands && from->nsources && from->nchunks && from->ncommands);
    if (!settled)
        return program_clone(from);
    program *p = program_clone_part(from, false);
    if (!p)
        return NULL;
    p->only_kept = true;
    p->nsources = p->kept_sources = from->nsources;
    p->nchunks = p->kept_chunks = from->nchunks;
    p->ncommands = from->ncommands;
    return p;
}

/* from's arrays of sources, chunks and commands are where spare's begin
 * when from holds nothing of its own (all it has is in its keep, k) and k
 * is in spare's line of keeps with every keep from there on continuing
 * the one before it where it ended (no program of that line cut its
 * arrays back below what a keep holds: program_release), and spare has
 * not cut them back since its last keep either. Keeps never change, and
 * commands are only ever added, so then spare's arrays begin with
 * exactly from's. */
bool program_arrays_shared(const program *from, const program *spare)
{
    const program_keep *k = from->kept;
    if (!k || from->kept_sources != from->nsources || from->kept_chunks != from->nchunks ||
        k->sources_to != from->nsources || k->chunks_to != from->nchunks || k->commands_to != from->ncommands)
        return false;
    if (spare->kept_sources < k->sources_to || spare->kept_chunks < k->chunks_to || spare->ncommands < k->commands_to)
        return false;
    for (const program_keep *at = spare->kept; at; at = at->parent) {
        if (at == k)
            return true;
        if (!at->parent || at->sources_from != at->parent->sources_to || at->chunks_from != at->parent->chunks_to)
            return false;
    }
    return false;
}

void program_take_arrays(program *p, const program *from, program *spare)
{
    /* past from's end, spare's own go; those a keep after from's holds
       go with that keep, when spare (freed next) lets go of it */
    for (size_t i = from->nsources; i < spare->nsources; i++)
        if (i >= spare->kept_sources)
            source_free(spare->sources[i]);
    for (size_t i = from->nchunks; i < spare->nchunks; i++)
        if (i >= spare->kept_chunks)
            chunk_free(spare->chunks[i]);
    p->sources = spare->sources;
    p->sources_cap = spare->sources_cap;
    p->nsources = p->kept_sources = from->nsources;
    p->chunks = spare->chunks;
    p->chunks_cap = spare->chunks_cap;
    p->nchunks = p->kept_chunks = from->nchunks;
    p->commands = spare->commands;
    p->commands_cap = spare->commands_cap;
    p->ncommands = from->ncommands;
    spare->sources = NULL;
    spare->chunks = NULL;
    spare->commands = NULL;
    spare->nsources = spare->sources_cap = spare->kept_sources = 0;
    spare->nchunks = spare->chunks_cap = spare->kept_chunks = 0;
    spare->ncommands = spare->commands_cap = 0;
}

void program_release(program *p, size_t nsources, size_t nchunks)
{
    /* one its keep holds only goes from the list: the keep frees it */
    while (p->nchunks > nchunks)
        if (--p->nchunks >= p->kept_chunks)
            chunk_free(p->chunks[p->nchunks]);
    while (p->nsources > nsources)
        if (--p->nsources >= p->kept_sources)
            source_free(p->sources[p->nsources]);
    if (p->kept_chunks > p->nchunks)
        p->kept_chunks = p->nchunks;
    if (p->kept_sources > p->nsources)
        p->kept_sources = p->nsources;
}

int program_add_global(program *p, int name, bool typed)
{
    int *grown = mem_grow(p->globals, sizeof(int), &p->globals_cap, p->nglobals + 1);
    if (grown)
        p->globals = grown;
    bool *by_hand = grown ? mem_grow(p->global_typed, sizeof(bool), &p->global_typed_cap, p->nglobals + 1) : NULL;
    if (!by_hand)
        return -1;
    p->global_typed = by_hand;
    p->globals[p->nglobals] = name;
    by_hand[p->nglobals] = typed;
    return (int)p->nglobals++;
}

int program_add_source(program *p, source *s)
{
    if (p->nsources >= INT32_MAX)
        return -1;
    source **grown = mem_grow(p->sources, sizeof(source *), &p->sources_cap, p->nsources + 1);
    if (!grown)
        return -1;
    p->sources = grown;
    p->sources[p->nsources] = s;
    p->source_bytes += s->len;
    return (int)p->nsources++;
}

static uint32_t hash_str(const char *s, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int lookup(const program *p, const char *s, size_t len, size_t *slot)
{
    if (!p->hash_cap)
        return -1;
    size_t mask = p->hash_cap - 1;
    for (size_t i = hash_str(s, len) & mask;; i = (i + 1) & mask) {
        int32_t id = p->string_hash[i];
        if (id < 0) {
            if (slot)
                *slot = i;
            return -1;
        }
        const char *t = p->strings[id];
        if (strlen(t) == len && memcmp(t, s, len) == 0)
            return id;
    }
}

static bool rehash(program *p, size_t cap)
{
    int32_t *h = mem_alloc(cap * sizeof(int32_t));
    if (!h)
        return false;
    for (size_t i = 0; i < cap; i++)
        h[i] = -1;
    for (size_t id = 0; id < p->nstrings; id++) {
        size_t len = strlen(p->strings[id]);
        size_t i = hash_str(p->strings[id], len) & (cap - 1);
        while (h[i] >= 0)
            i = (i + 1) & (cap - 1);
        h[i] = (int32_t)id;
    }
    if (p->string_hash)
        mem_free(p->string_hash, p->hash_cap * sizeof(int32_t));
    p->string_hash = h;
    p->hash_cap = cap;
    return true;
}

int program_intern(program *p, const char *s, size_t len)
{
    int id = lookup(p, s, len, NULL);
    if (id >= 0)
        return id;
    if ((p->nstrings + 1) * 2 > p->hash_cap && !rehash(p, p->hash_cap ? p->hash_cap * 2 : 256))
        return -1;
    char **grown = mem_grow(p->strings, sizeof(char *), &p->strings_cap, p->nstrings + 1);
    if (!grown)
        return -1;
    p->strings = grown;
    char *copy = mem_strndup(s, len);
    if (!copy)
        return -1;
    size_t slot;
    lookup(p, s, len, &slot);
    p->strings[p->nstrings] = copy;
    p->string_hash[slot] = (int32_t)p->nstrings;
    return (int)p->nstrings++;
}

int program_find_string(const program *p, const char *s)
{
    return lookup(p, s, strlen(s), NULL);
}

const char *program_string(const program *p, int id)
{
    return id >= 0 && (size_t)id < p->nstrings ? p->strings[id] : "?";
}

int program_add_chunk(program *p, chunk *c)
{
    chunk **grown = mem_grow(p->chunks, sizeof(chunk *), &p->chunks_cap, p->nchunks + 1);
    if (!grown)
        return -1;
    p->chunks = grown;
    p->chunks[p->nchunks] = c;
    return (int)p->nchunks++;
}

int program_add_dice(program *p, const dexpr *d)
{
    dexpr *grown = mem_grow(p->dice, sizeof(dexpr), &p->dice_cap, p->ndice + 1);
    if (!grown)
        return -1;
    p->dice = grown;
    p->dice[p->ndice] = *d;
    return (int)p->ndice++;
}

static uint64_t name_key(decl_kind kind, int name)
{
    return (uint64_t)kind << 32 | (uint32_t)name;
}

/* Spans of one kind never share a start in one source; the key mixes the
   three, and a lookup checks what it found. */
static uint64_t place_key(decl_kind kind, span where)
{
    return ((uint64_t)where.source << 32 | where.start) * 64 + (uint64_t)kind;
}

decl *program_add_decl(program *p, decl_kind kind, int name, span where)
{
    decl *grown = mem_grow(p->decls, sizeof(decl), &p->decls_cap, p->ndecls + 1);
    if (!grown)
        return NULL;
    p->decls = grown;
    if (!keymap_put(&p->decl_by_name, name_key(kind, name), (int32_t)p->ndecls) ||
        !keymap_put(&p->decl_by_place, place_key(kind, where), (int32_t)p->ndecls)) {
        p->decls_unindexed = true;
        return NULL;
    }
    decl *d = &p->decls[p->ndecls++];
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->name = name;
    d->where = where;
    d->cite = d->value = d->body = d->object = -1;
    return d;
}

const decl *program_find_decl(const program *p, decl_kind kind, int name)
{
    if (!p->decls_unindexed) {
        int32_t at = keymap_get(&p->decl_by_name, name_key(kind, name));
        return at >= 0 ? &p->decls[at] : NULL;
    }
    for (size_t i = p->ndecls; i-- > 0;)
        if (p->decls[i].kind == kind && p->decls[i].name == name)
            return &p->decls[i];
    return NULL;
}

decl *program_decl_at(program *p, decl_kind kind, span where)
{
    int32_t at = keymap_get(&p->decl_by_place, place_key(kind, where));
    if (at >= 0 && !p->decls_unindexed) {
        decl *d = &p->decls[at];
        if (d->kind == kind && d->where.start == where.start && d->where.source == where.source)
            return d;
    }
    for (size_t i = p->ndecls; i-- > 0;) {
        decl *d = &p->decls[i];
        if (d->where.start == where.start && d->where.source == where.source && d->kind == kind)
            return d;
    }
    return NULL;
}

int program_decl_index(const program *p, const decl *d)
{
    return (int)(d - p->decls);
}
