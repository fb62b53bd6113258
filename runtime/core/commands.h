/* commands: the play commands listed in commands.def, and the layout of
 * the arguments each family of them is given. */
#ifndef FRAY_COMMANDS_H
#define FRAY_COMMANDS_H

#include <stdbool.h>

#include "runtime/core/value.h"

typedef enum {
#define COMMAND(id, word, usage, meaning) CMD_##id,
#include "runtime/core/commands.def"
#undef COMMAND
    CMD_COUNT
} command_id;

typedef enum {
#define FAMILY(family, slots) FAMILY_##family,
#include "runtime/core/commands.def"
#undef FAMILY
    FAMILY_COUNT
} command_family;

/* Each family's slots, numbered from 0 in the order they are pushed:
   ARG_HOLD_WHO, ARG_HOLD_ARGS, ... and NSLOTS_hold. */
#define NO_ARGS
#define ONE(slot) ARG_##slot,
#define OPT(slot) ARG_##slot,
#define REST(slot) ARG_##slot,
#define LIST(slot, count) ARG_##slot,
#define FAMILY(family, slots) enum { slots NSLOTS_##family };
#include "runtime/core/commands.def"
#undef FAMILY
#undef LIST
#undef REST
#undef OPT
#undef ONE
#undef NO_ARGS

/* The most slots a family has (hold's 7). */
#define COMMAND_MAX_SLOTS 8

/* The most arguments one command is given (roll initiative for 1024
 * creatures, join 2047): they wait on the VM's stack while it runs, with
 * room to spare for the calls it makes (VM_STACK_MAX is 4096). */
#define COMMAND_MAX_ARGS 2048

typedef enum { SLOT_ONE, SLOT_OPT, SLOT_REST, SLOT_LIST } slot_kind;

typedef struct {
    slot_kind kind;
    int count; /* a LIST's: the slot that says how long it is */
} command_slot;

typedef struct {
    const command_slot *slots;
    int nslots;
} command_layout;

extern const char *const command_words[CMD_COUNT];
extern const char *const command_usage[CMD_COUNT];
extern const char *const command_meaning[CMD_COUNT];
extern const command_family command_families[CMD_COUNT];
extern const command_layout command_layouts[FAMILY_COUNT];

/* Where each slot's values are among a command's arguments. */
typedef struct {
    const value *args;
    int argc;
    struct {
        int at, n;
    } slot[COMMAND_MAX_SLOTS];
} command_args;

/* Finds the slots of a command's `argc` arguments by its family's layout;
   false if they cannot be laid out so (a count out of range, a missing
   value). */
bool command_args_read(command_id cmd, const value *args, int argc, command_args *out);

/* A slot's value: nil where an OPT slot was given nothing. */
value command_arg(const command_args *a, int slot);
/* The values of a REST or LIST slot, and how many there are. */
const value *command_list(const command_args *a, int slot);
int command_count(const command_args *a, int slot);

#endif
