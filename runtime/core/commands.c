/* commands: the names, usage lines and meanings of the play commands, and
 * the layout of their arguments (commands.def). */
#include "runtime/core/commands.h"

const char *const command_words[CMD_COUNT] = {
#define COMMAND(id, word, usage, meaning) word,
#include "runtime/core/commands.def"
#undef COMMAND
};

const char *const command_usage[CMD_COUNT] = {
#define COMMAND(id, word, usage, meaning) usage,
#include "runtime/core/commands.def"
#undef COMMAND
};

const char *const command_meaning[CMD_COUNT] = {
#define COMMAND(id, word, usage, meaning) meaning,
#include "runtime/core/commands.def"
#undef COMMAND
};

const command_family command_families[CMD_COUNT] = {
#define COMMAND_OF(family, id, word, usage, meaning) FAMILY_##family,
#include "runtime/core/commands.def"
#undef COMMAND_OF
};

#define FAMILY(family, slots) \
    _Static_assert(NSLOTS_##family <= COMMAND_MAX_SLOTS, "COMMAND_MAX_SLOTS holds every family's slots");
#include "runtime/core/commands.def"
#undef FAMILY

/* Each family's slots, ended by one that is none (an empty family has
   only that). */
#define NO_ARGS
#define ONE(slot) {SLOT_ONE, -1},
#define OPT(slot) {SLOT_OPT, -1},
#define REST(slot) {SLOT_REST, -1},
#define LIST(slot, count) {SLOT_LIST, ARG_##count},
#define FAMILY(family, slots) static const command_slot slots_##family[] = {slots{SLOT_ONE, -1}};
#include "runtime/core/commands.def"
#undef FAMILY

const command_layout command_layouts[FAMILY_COUNT] = {
#define FAMILY(family, slots) {slots_##family, NSLOTS_##family},
#include "runtime/core/commands.def"
#undef FAMILY
};
#undef LIST
#undef REST
#undef OPT
#undef ONE
#undef NO_ARGS

/* A LIST's length, once its count slot is read; -1 while it is not, or if
   the count is no length among `argc` arguments. */
static int list_length(const command_args *a, const command_slot *s, const bool *read)
{
    if (!read[s->count])
        return -1;
    value n = a->args[a->slot[s->count].at];
    return n.type == V_INT && n.num >= 0 && n.num <= a->argc ? (int)n.num : -1;
}

/* How many values a slot holds, if that is known without the others. */
static int slot_size(const command_args *a, const command_slot *s, const bool *read)
{
    if (s->kind == SLOT_ONE)
        return 1;
    return s->kind == SLOT_LIST ? list_length(a, s, read) : -1;
}

/* The slot left between the two ends takes what they leave. */
static bool fill_middle(command_args *a, const command_slot *s, int slot, int from, int to, const bool *read)
{
    int n = to - from;
    if (n < 0)
        return false;
    if ((s->kind == SLOT_ONE && n != 1) || (s->kind == SLOT_OPT && n > 1))
        return false;
    if (s->kind == SLOT_LIST && list_length(a, s, read) != n)
        return false;
    a->slot[slot].at = from;
    a->slot[slot].n = n;
    return true;
}

bool command_args_read(command_id cmd, const value *args, int argc, command_args *out)
{
    const command_layout *l = &command_layouts[command_families[cmd]];
    bool read[COMMAND_MAX_SLOTS] = {false};
    *out = (command_args){.args = args, .argc = argc};
    /* from the first argument on, while each slot's size is known */
    int first = 0, from = 0;
    for (int size; first < l->nslots && (size = slot_size(out, &l->slots[first], read)) >= 0; first++) {
        if (from + size > argc)
            return false;
        out->slot[first].at = from;
        out->slot[first].n = size;
        read[first] = true;
        from += size;
    }
    /* then from the last back, down to the first slot not yet read */
    int last = l->nslots - 1, to = argc;
    for (int size; last > first && (size = slot_size(out, &l->slots[last], read)) >= 0; last--) {
        if (to - size < from)
            return false;
        to -= size;
        out->slot[last].at = to;
        out->slot[last].n = size;
        read[last] = true;
    }
    if (first == l->nslots)
        return from == argc;
    if (last > first)
        return false; /* two slots of unknown size: commands.def forbids it */
    return fill_middle(out, &l->slots[first], first, from, to, read);
}

value command_arg(const command_args *a, int slot)
{
    return a->slot[slot].n > 0 ? a->args[a->slot[slot].at] : value_nil();
}

const value *command_list(const command_args *a, int slot)
{
    return a->args + a->slot[slot].at;
}

int command_count(const command_args *a, int slot)
{
    return a->slot[slot].n;
}
