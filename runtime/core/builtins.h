/* builtins: the ids of the built-in functions listed in builtins.def. */
#ifndef FRAY_BUILTINS_H
#define FRAY_BUILTINS_H

typedef enum {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) BI_##name,
#include "runtime/core/builtins.def"
#undef BUILTIN
    BI_COUNT
} builtin_id;

#endif
