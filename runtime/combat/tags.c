/* tags: things with a name made up in play ("On Fire", "Cornered")
 * attached to a creature, a side, a zone or the encounter, each with a
 * count of free uses and a duration. The rules add, query, use and remove
 * them through builtins, the GM through `tag` and `untag`. A duration is
 * an effect of its own (effects.c), counted down as a condition's is; when
 * it ends, the tag goes. */
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/world.h"

/* What a GM may type as a tag's name, and how many free uses one holds. */
#define TAG_NAME_MAX 100
/* Tags in play at once: they are found by a look through them all, so a
   rule that adds them without end stops here, in a moment, not after
   hours of looking. A table has dozens. */
#define TAG_MOST 10000
#define TAG_USES_MAX 1000

typedef struct holder {
    uint8_t kind; /* TAG_ON_* */
    int32_t id;
} holder;

static const char *const fn_names[] = {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) #name,
#include "runtime/core/builtins.def"
#undef BUILTIN
};

/* --- holders and names ------------------------------------------------------------ */

static bool holder_of(vm *v, value x, const char *who, holder *h, span at)
{
    if (x.type == V_CREATURE) {
        *h = (holder){TAG_ON_CREATURE, (int32_t)x.num};
        return true;
    }
    if (x.type != V_WORD && x.type != V_STR)
        return vm_error(v, at, "%s: a tag is held by a creature, a side, a zone or the encounter, not %s", who,
                        value_type_name(x.type));
    const char *text = vm_string(v, x);
    int id = program_find_string(v->p, text);
    if (!strcmp(text, "encounter")) {
        *h = (holder){TAG_ON_ENCOUNTER, 0};
        return true;
    }
    if (id >= 0 && rules_side(v->r, id) >= 0) {
        *h = (holder){TAG_ON_SIDE, rules_side(v->r, id)};
        return true;
    }
    if (id >= 0 && zones_between(v, id, id) >= 0) {
        *h = (holder){TAG_ON_ZONE, id};
        return true;
    }
    return vm_error(v, at, "%s: '%s' is not a creature, a side, a zone or the encounter, so it holds no tag", who,
                    text);
}

static const char *holder_name(vm *v, uint8_t kind, int32_t id)
{
    switch (kind) {
    case TAG_ON_CREATURE: return world_name(v, id);
    case TAG_ON_SIDE: return program_string(v->p, v->r->sides[id]);
    case TAG_ON_ZONE: return program_string(v->p, id);
    default: return "the encounter";
    }
}

/* The holder as a value, for an event. */
static bool holder_value(vm *v, const tag *t, span at, value *out)
{
    switch (t->kind) {
    case TAG_ON_CREATURE: *out = value_ref(V_CREATURE, 0, t->holder); return true;
    case TAG_ON_SIDE: *out = value_ref(V_WORD, HOME_PROGRAM, v->r->sides[t->holder]); return true;
    case TAG_ON_ZONE: *out = value_ref(V_WORD, HOME_PROGRAM, t->holder); return true;
    default: return vm_make_string(v, "encounter", strlen("encounter"), at, out);
    }
}

/* A tag's name: a string (or word) of one line, not empty, bounded, since
   the GM makes it up at the table. */
static bool tag_name(vm *v, value x, const char *who, const char **out, span at)
{
    if (x.type != V_STR && x.type != V_WORD)
        return vm_error(v, at, "%s: a tag's name is a string, as in \"On Fire\", not %s", who, value_type_name(x.type));
    const char *s = vm_string(v, x);
    size_t len = strlen(s);
    if (len == 0)
        return vm_error(v, at, "%s: a tag needs a name, not an empty string", who);
    if (len > TAG_NAME_MAX)
        return vm_error(v, at, "%s: a tag's name is at most %d bytes, not %zu", who, TAG_NAME_MAX, len);
    if (strpbrk(s, "\n\t\r"))
        return vm_error(v, at, "%s: a tag's name is one line of text, without tabs or line breaks", who);
    *out = s;
    return true;
}

static int find_tag(const struct world *w, holder h, const char *name)
{
    for (size_t i = 0; i < w->ntags; i++)
        if (w->tags[i].kind == h.kind && w->tags[i].holder == h.id && !strcmp(w->tags[i].name, name))
            return (int)i;
    return -1;
}

static int find_by_id(const struct world *w, int32_t id)
{
    for (size_t i = 0; i < w->ntags; i++)
        if (w->tags[i].id == id)
            return (int)i;
    return -1;
}

/* "On Fire" (1 free use, 2 rounds left) */
static void describe(vm *v, const tag *t, text_buf *out)
{
    text_add(out, "\"%s\"", t->name);
    text_buf lasts;
    text_init(&lasts);
    if (t->effect >= 0)
        effects_lasts_text(v, t->effect, &lasts);
    if (t->uses > 0 || lasts.len)
        text_add(out, " (");
    if (t->uses > 0)
        text_add(out, "%d free use%s%s", t->uses, t->uses == 1 ? "" : "s", lasts.len ? ", " : "");
    if (lasts.len)
        text_put(out, lasts.s);
    if (t->uses > 0 || lasts.len)
        text_put(out, ")");
    text_free(&lasts);
}

/* --- adding and removing --------------------------------------------------------- */

static bool emit_tag(vm *v, int event, const tag *t, span at)
{
    value args[2];
    return holder_value(v, t, at, &args[0]) && vm_make_string(v, t->name, strlen(t->name), at, &args[1]) &&
           events_emit(v, event, args, 2, at);
}

/* Takes tag i out (its duration's effect already gone or dropped here),
   says why and emits tag_removed. */
static bool drop(vm *v, int i, const char *why, bool by_hand, span at)
{
    struct world *w = v->world;
    tag t = w->tags[i];
    if (by_hand)
        effects_drop_tag(v, t.effect);
    memmove(&w->tags[i], &w->tags[i + 1], (w->ntags - (size_t)i - 1) * sizeof(tag));
    w->ntags--;
    vm_play_changed(v);
    const char *on = holder_name(v, t.kind, t.holder);
    if (why)
        combat_say(v, "tag \"%s\" on %s ended (%s)", t.name, on, why);
    else
        combat_say(v, "%s loses the tag \"%s\"", on, t.name);
    bool ok = emit_tag(v, EV_TAG_REMOVED, &t, at);
    mem_strfree(t.name);
    return ok;
}

bool tags_expired(vm *v, int32_t id, const char *why, span at)
{
    int i = find_by_id(v->world, id);
    return i < 0 || drop(v, i, why ? why : "its time is up", false, at);
}

/* A new tag, last of the world's, with no uses and no duration; its
   index, or -1 on an error. */
static int new_tag(vm *v, holder h, const char *name, span at)
{
    struct world *w = v->world;
    if (w->ntags >= TAG_MOST)
        return vm_error(v, at, "too many tags at once (limit is %d)", TAG_MOST), -1;
    if (w->ntags >= (size_t)v->limits.effects)
        return vm_error(v, at, "too many tags at once (limit is %d; see --limit effects=N)", v->limits.effects), -1;
    tag *g = mem_grow(w->tags, sizeof(tag), &w->tags_cap, w->ntags + 1);
    char *copy = g ? mem_strndup(name, strlen(name)) : NULL;
    if (g)
        w->tags = g;
    if (!copy)
        return vm_error(v, at, "out of memory"), -1;
    vm_play_changed(v);
    w->tags[w->ntags] = (tag){.name = copy, .kind = h.kind, .holder = h.id, .id = ++w->tag_serial, .effect = -1};
    return (int)w->ntags++;
}

/* Adds a tag, or gives one already there more free uses (and a new
   duration, when one is given). *added: it is new. */
static bool add(vm *v, holder h, const char *name, value uses, value lasts, bool *added, span at)
{
    int64_t n = 0;
    if (uses.type != V_NIL) {
        if (uses.type != V_INT && uses.type != V_ROLL) /* a roll is its total */
            return vm_error(v, at, "a tag's free uses are a whole number, not %s", value_type_name(uses.type));
        n = uses.num;
        if (n < 0 || n > TAG_USES_MAX)
            return vm_error(v, at, "a tag has 0 to %d free uses, not %lld", TAG_USES_MAX, (long long)n);
    }
    if (lasts.type != V_NIL && lasts.type != V_TIME)
        return vm_error(v, at, "a tag lasts a time (as in 2 rounds), not %s", value_type_name(lasts.type));
    struct world *w = v->world;
    int i = find_tag(w, h, name);
    *added = i < 0;
    if (i < 0 && (i = new_tag(v, h, name, at)) < 0)
        return false;
    if (w->tags[i].uses + n > TAG_USES_MAX) /* only one already there can pass it */
        return vm_error(v, at, "a tag has at most %d free uses", TAG_USES_MAX);
    tag *t = &w->tags[i];
    t->uses += (int32_t)n;
    vm_play_changed(v);
    if (lasts.type == V_TIME) {
        int32_t serial = t->id;
        effects_drop_tag(v, t->effect);
        t->effect = -1;
        int32_t e = effects_tag(v, serial, h.kind == TAG_ON_CREATURE ? h.id : -1, lasts, at);
        i = find_by_id(w, serial); /* a round's length may be a formula: the tags may have moved */
        if (e < 0) {
            if (*added && i >= 0) { /* never said: it goes without a word */
                mem_strfree(w->tags[i].name);
                memmove(&w->tags[i], &w->tags[i + 1], (w->ntags - (size_t)i - 1) * sizeof(tag));
                w->ntags--;
                vm_play_changed(v);
            }
            return false;
        }
        if (i < 0)
            return vm_error(v, at, "the tag \"%s\" was removed while its duration was set", name);
        t = &w->tags[i];
        t->effect = e;
    }
    text_buf said;
    text_init(&said);
    describe(v, t, &said);
    if (*added)
        combat_say(v, "%s gains the tag %s", holder_name(v, h.kind, h.id), said.s);
    else
        combat_say(v, "%s renews the tag %s", holder_name(v, h.kind, h.id), said.s);
    text_free(&said);
    return !*added || emit_tag(v, EV_TAG_ADDED, t, at);
}

/* A tag a holder is declared with, as a zone's `with high`: part of what
   the holder is, so it is added without a word and raises no event, like
   a zone's neighbours; said again, it is already there. */
bool tags_declare(vm *v, uint8_t kind, int32_t holder_id, const char *name, span at)
{
    holder h = {kind, holder_id};
    if (find_tag(v->world, h, name) >= 0)
        return true;
    if (strlen(name) > TAG_NAME_MAX)
        return vm_error(v, at, "a tag's name is at most %d bytes, not %zu", TAG_NAME_MAX, strlen(name));
    int i = new_tag(v, h, name, at);
    if (i >= 0)
        v->world->tags[i].declared = true;
    return i >= 0;
}

/* --- the builtins ----------------------------------------------------------------- */

static bool list_tags(vm *v, holder h, span at, value *out)
{
    vm_gather g = {0};
    for (size_t i = 0; i < v->world->ntags; i++) {
        const tag *t = &v->world->tags[i];
        value s;
        if (t->kind == h.kind && t->holder == h.id &&
            (!vm_make_string(v, t->name, strlen(t->name), at, &s) || !vm_gather_add(v, &g, s, at))) {
            vm_gather_drop(&g);
            return false;
        }
    }
    return vm_gather_list(v, &g, at, out);
}

bool tags_builtin(vm *v, int id, value *args, int argc, span at, value *out)
{
    char who[32];
    snprintf(who, sizeof who, "%s()", fn_names[id]);
    holder h;
    const char *name = NULL;
    if (!holder_of(v, args[0], who, &h, at))
        return false;
    if (id == BI_tags)
        return list_tags(v, h, at, out);
    if (!tag_name(v, args[1], who, &name, at))
        return false;
    int i = find_tag(v->world, h, name);
    switch (id) {
    case BI_tag: {
        bool added;
        if (!add(v, h, name, argc > 2 ? args[2] : value_nil(), argc > 3 ? args[3] : value_nil(), &added, at))
            return false;
        *out = value_bool(added);
        return true;
    }
    case BI_untag: *out = value_bool(i >= 0); return i < 0 || drop(v, i, NULL, true, at);
    case BI_has_tag: *out = value_bool(i >= 0); return true;
    case BI_tag_uses: *out = value_int(i >= 0 ? v->world->tags[i].uses : 0); return true;
    case BI_use_tag:
        *out = value_bool(i >= 0 && v->world->tags[i].uses > 0);
        if (!out->num)
            return true;
        v->world->tags[i].uses--;
        vm_play_changed(v);
        combat_say(v, "%s uses a free use of \"%s\" (%d left)", holder_name(v, h.kind, h.id), name,
                   v->world->tags[i].uses);
        return true;
    default: return vm_error(v, at, "internal: %s is not a builtin of tags", who);
    }
}

/* --- the GM's commands ------------------------------------------------------------ */

bool tags_command(vm *v, bool add_it, value who, value name, value uses, value lasts, span at)
{
    const char *cmd = add_it ? "tag" : "untag";
    holder h;
    const char *text;
    if (!holder_of(v, who, cmd, &h, at) || !tag_name(v, name, cmd, &text, at))
        return false;
    if (add_it) {
        bool added;
        return add(v, h, text, uses, lasts, &added, at);
    }
    int i = find_tag(v->world, h, text);
    if (i < 0)
        return vm_error(v, at, "%s has no tag \"%s\"", holder_name(v, h.kind, h.id), text);
    return drop(v, i, NULL, true, at);
}

/* --- showing, copying, freeing --------------------------------------------------- */

/* A tag shown with its holder's declaration: one it was declared with that
   has no free uses or duration since given it. */
static bool as_declared(const tag *t)
{
    return t->declared && t->uses == 0 && t->effect < 0;
}

/* " [high, dark]" */
void tags_show_declared(vm *v, uint8_t kind, int32_t holder_id, combat_line *line)
{
    bool first = true;
    for (size_t i = 0; i < v->world->ntags; i++) {
        const tag *tg = &v->world->tags[i];
        if (tg->kind == kind && tg->holder == holder_id && as_declared(tg)) {
            combat_line_add(v, line, "%s%s", first ? " [" : ", ", tg->name);
            first = false;
        }
    }
    if (!first)
        combat_line_add(v, line, "]");
}

void tags_show_on(vm *v, uint8_t kind, int32_t holder_id, combat_line *line, const char *before)
{
    bool first = true;
    text_buf t;
    text_init(&t);
    for (size_t i = 0; i < v->world->ntags; i++) {
        const tag *tg = &v->world->tags[i];
        if (tg->kind != kind || tg->holder != holder_id || as_declared(tg))
            continue;
        text_clear(&t);
        describe(v, tg, &t);
        combat_line_add(v, line, "%s%s", first ? before : ", ", t.s);
        first = false;
    }
    text_free(&t);
}

bool tags_any_on(const vm *v, uint8_t kind, int32_t holder_id)
{
    for (size_t i = 0; i < v->world->ntags; i++)
        if (v->world->tags[i].kind == kind && v->world->tags[i].holder == holder_id)
            return true;
    return false;
}

void tags_free(struct world *w)
{
    for (size_t i = 0; i < w->ntags; i++)
        mem_strfree(w->tags[i].name);
    if (w->tags)
        mem_free(w->tags, w->tags_cap * sizeof(tag));
    w->tags = NULL;
    w->ntags = w->tags_cap = 0;
}

bool tags_clone(struct world *w, const struct world *from)
{
    bool ok = true;
    w->tags = mem_dup(from->tags, from->tags_cap * sizeof(tag), &ok);
    if (!w->tags) {
        w->ntags = w->tags_cap = 0;
        return ok;
    }
    /* a name not copied is NULL, which tags_free passes over */
    for (size_t i = 0; i < w->ntags; i++)
        w->tags[i].name = mem_dup(from->tags[i].name, strlen(from->tags[i].name) + 1, &ok);
    return ok;
}
