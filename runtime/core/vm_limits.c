/* vm_limits: the limits a command runs under, by name (--limit NAME=N,
 * `fray help limits`), and their defaults. */
#include "runtime/core/vm.h"

#include <string.h>

#include "runtime/base/mem.h"

const vm_limits vm_default_limits = {
    .steps = 10000000,
    .call_depth = 200,
    .creatures = 100000,
    .effects = 1000000,
    .list_values = 1u << 22,
    .dice_exprs = 1u << 16,
    .memory = MEM_DEFAULT_BUDGET,
    .trigger_depth = 32,
    .fight_rounds = 1000,
    .dice = DICE_DEFAULT_COUNT,
    .sides = DICE_DEFAULT_SIDES,
    .string_bytes = STRING_DEFAULT_BYTES,
    .nesting = NESTING_DEFAULT,
    .exact = {.outcomes = DIST_DEFAULT_OUTCOMES, .work = DIST_DEFAULT_WORK},
};

const vm_limit_info vm_limit_infos[] = {
    {"steps", "instructions per command, or per turn of a fight (--max-steps)", UINT64_MAX / 200},
    {"depth", "nested calls of procedures, formulas and triggers (--max-depth)", VM_FRAMES_MAX},
    {"creatures", "creatures in play at once (--max-creatures)", 100000000},
    {"effects", "effects in force at once: conditions, cooldowns, holds, relations", 100000000},
    {"list-values", "values held in lists at once", (uint64_t)1 << 32},
    {"dice-exprs", "dice expressions built by arithmetic in one command", (uint64_t)1 << 32},
    {"memory", "MiB of memory one command, or the compile of one file, may take", (uint64_t)1 << 20},
    {"trigger-depth", "triggers setting off triggers", 100000},
    {"fight-rounds", "rounds of a fight without an end", 100000000},
    {"dice", "dice rolled by one term such as 1000d6", DICE_MAX_COUNT},
    {"sides", "sides of one die", DICE_MAX_SIDES},
    {"string-bytes", "bytes of one string written in a rules file or a command, or built by text()", STRING_MAX_BYTES},
    {"nesting", "levels of brackets, blocks and operators in rules, and of lists in lists", NESTING_MAX},
    {"outcomes", "outcomes of an exact distribution", DIST_MAX_OUTCOMES},
    {"exact-work", "steps of one exact sum, product or keep/drop pool", DIST_MAX_WORK},
    {NULL, NULL, 0},
};

/* Where each limit lives in the struct (memory is kept in bytes). */
static void *limit_slot(vm_limits *l, const char *name, bool *wide)
{
    *wide = false;
    if (!strcmp(name, "steps"))
        return *wide = true, (void *)&l->steps;
    if (!strcmp(name, "depth"))
        return &l->call_depth;
    if (!strcmp(name, "creatures"))
        return &l->creatures;
    if (!strcmp(name, "effects"))
        return &l->effects;
    if (!strcmp(name, "trigger-depth"))
        return &l->trigger_depth;
    if (!strcmp(name, "fight-rounds"))
        return &l->fight_rounds;
    if (!strcmp(name, "dice"))
        return &l->dice;
    if (!strcmp(name, "sides"))
        return &l->sides;
    if (!strcmp(name, "string-bytes"))
        return &l->string_bytes;
    if (!strcmp(name, "nesting"))
        return &l->nesting;
    if (!strcmp(name, "outcomes"))
        return *wide = true, (void *)&l->exact.outcomes;
    if (!strcmp(name, "exact-work"))
        return *wide = true, (void *)&l->exact.work;
    return NULL;
}

uint64_t vm_limit_most(const char *name)
{
    const vm_limit_info *info = vm_limit_infos;
    while (info->name && strcmp(info->name, name))
        info++;
    return info->name ? info->max : 0;
}

bool vm_limit_set(vm_limits *l, const char *name, uint64_t n)
{
    if (n < 1 || n > vm_limit_most(name))
        return false;
    bool wide;
    void *slot = limit_slot(l, name, &wide);
    if (slot && wide)
        *(uint64_t *)slot = n;
    else if (slot)
        *(int *)slot = (int)n;
    else if (!strcmp(name, "list-values"))
        l->list_values = (size_t)n;
    else if (!strcmp(name, "dice-exprs"))
        l->dice_exprs = (size_t)n;
    else if (!strcmp(name, "memory"))
        l->memory = (size_t)n << 20;
    return true;
}

uint64_t vm_limit_get(const vm_limits *l, const char *name)
{
    bool wide;
    void *slot = limit_slot((vm_limits *)l, name, &wide);
    if (slot)
        return wide ? *(uint64_t *)slot : (uint64_t) * (int *)slot;
    if (!strcmp(name, "list-values"))
        return l->list_values;
    if (!strcmp(name, "dice-exprs"))
        return l->dice_exprs;
    if (!strcmp(name, "memory"))
        return l->memory >> 20;
    return 0;
}
