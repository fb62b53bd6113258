/* commands: the ids of the play commands listed in commands.def. */
#ifndef FRAY_COMMANDS_H
#define FRAY_COMMANDS_H

typedef enum {
#define COMMAND(id, word, usage, meaning) CMD_##id,
#include "runtime/core/commands.def"
#undef COMMAND
    CMD_COUNT
} command_id;

/* The most arguments one command is given (roll initiative for 1024
 * creatures, join 2047): they wait on the VM's stack while it runs, with
 * room to spare for the calls it makes (VM_STACK_MAX is 4096). */
#define COMMAND_MAX_ARGS 2048

extern const char *const command_words[CMD_COUNT];
extern const char *const command_usage[CMD_COUNT];
extern const char *const command_meaning[CMD_COUNT];

#endif
