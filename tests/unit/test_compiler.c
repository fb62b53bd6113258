/* Unit tests for the compiler: diagnostics (unknown names, types,
 * duplicates, arity, imports) and the shape of what it produces (chunks,
 * declarations, clause arguments, spans, valid opcodes). */
#define _DEFAULT_SOURCE
#include "tests/unit/check_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/compile.h"
#include "runtime/core/rules.h"
#include "runtime/base/mem.h"
#include "runtime/core/program.h"

typedef struct msgs {
    int n;
    char text[32][300];
    span where[32];
} msgs;

static void record(void *user, const diag *d)
{
    msgs *m = user;
    if (d->level == DIAG_ERROR && m->n < 32) {
        snprintf(m->text[m->n], sizeof m->text[0], "%s", d->message);
        m->where[m->n] = d->where;
        m->n++;
    }
}

static program *P;
static msgs M;
static diag_sink S;

static void setup(void)
{
    P = program_new();
    memset(&M, 0, sizeof M);
    S = (diag_sink){.fn = record, .user = &M};
}

static void teardown(void)
{
    program_free(P);
    P = NULL;
}

static int compile(const char *text)
{
    return compile_string(P, "t.rules", text, strlen(text), &S, NULL);
}

static bool has_msg(const char *needle)
{
    for (int i = 0; i < M.n; i++)
        if (strstr(M.text[i], needle))
            return true;
    return false;
}

#define ASSERT_ERROR(src_, needle_)                                                                           \
    do {                                                                                                      \
        int errs_ = compile(src_);                                                                            \
        ck_assert_msg(errs_ >= 1, "no error for: %s", src_);                                                  \
        ck_assert_msg(has_msg(needle_), "no '%s' among errors for %s (first: %s)", needle_, src_, M.text[0]); \
    } while (0)

START_TEST(test_commands_in_bodies_are_checked)
{
    ASSERT_ERROR("action a(t) {\n  next\n}\n", "'next' is a command of the table, on a line of its own");
    ASSERT_ERROR("procedure p(t) {\n  remove t\n}\n", "not a creature out of play");
    ASSERT_ERROR("trigger t {\n on turn_end(c)\n do { frobnicate 3 }\n}\n",
                 "expected a statement here, not 'frobnicate'");
    /* the commands that change the state of play are statements */
    ck_assert_int_eq(compile("condition c { }\nprocedure q(t) {\n  apply c to t\n  if true { remove c from t }\n}\n"),
                     0);
}
END_TEST

START_TEST(test_unknown_name_did_you_mean)
{
    ASSERT_ERROR("stat dex = 1\nprint dexx\n", "unknown name 'dexx'; did you mean 'dex'?");
    ck_assert_int_eq(M.where[0].start, 19);
    ck_assert_int_eq(M.where[0].end, 23);
}
END_TEST

START_TEST(test_unknown_name_far_has_no_suggestion)
{
    ASSERT_ERROR("stat dex = 1\nprint zzzzzzzz\n", "unknown name 'zzzzzzzz'");
    ck_assert(!has_msg("did you mean"));
}
END_TEST

START_TEST(test_unknown_function_did_you_mean)
{
    ASSERT_ERROR("print mix(1, 2)\n", "did you mean 'min'");
}
END_TEST

/* A word the language had and has no longer: named as gone, with what to
   write instead, wherever it is written (a clause, a function, a command);
   the same word of the rules' own is theirs. */
START_TEST(test_retired_words_say_what_to_write)
{
    ASSERT_ERROR("stat b = 0\ncheck i(self) = d20\ninitiative { roll i\n tiebreak b }\n",
                 "an initiative has no clause 'tiebreak' any more: a tiebreak is part of the score");
    ASSERT_ERROR("creature a { }\nprint zone_has(a, \"open\")\n",
                 "there is no function 'zone_has' any more: a zone's traits are tags");
    ASSERT_ERROR("creature a { }\ncreature b { }\nengage a with b\n", "there is no command 'engage' any more");
    ck_assert_int_eq(compile("procedure engaged(a, b) { return false }\nprocedure p(x) { return engaged(x, x) }\n"), 0);
}
END_TEST

START_TEST(test_type_distance_plus_duration)
{
    ASSERT_ERROR("print 5 ft + 1 round\n", "cannot add");
    ck_assert(has_msg("distance"));
    ck_assert(has_msg("duration"));
}
END_TEST

START_TEST(test_type_distance_plus_number)
{
    ASSERT_ERROR("print 5 ft + 5\n", "cannot add");
}
END_TEST

START_TEST(test_type_dice_plus_string)
{
    ck_assert_int_ge(compile("print d20 + \"x\"\n"), 1);
}
END_TEST

START_TEST(test_dice_compared_without_roll)
{
    ASSERT_ERROR("print d20 < 5\n", "write 'roll' before the dice");
}
END_TEST

START_TEST(test_dice_as_condition)
{
    ASSERT_ERROR("if d20 { print 1 }\n", "dice are not a condition");
}
END_TEST

START_TEST(test_number_is_not_a_condition)
{
    /* language.md 3.6: a condition that is not boolean is rejected */
    ck_assert_int_ge(compile("if 3 { print 1 }\n"), 1);
}
END_TEST

START_TEST(test_roll_is_not_a_condition)
{
    /* language.md 3.6: `if roll d20 { }` must compare the roll */
    ck_assert_int_ge(compile("if roll d20 { print 1 }\n"), 1);
}
END_TEST

START_TEST(test_distance_condition)
{
    ASSERT_ERROR("if 5 ft { print 1 }\n", "not a condition");
}
END_TEST

START_TEST(test_boolean_conditions_compile)
{
    ck_assert_int_eq(compile("if roll d20 >= 10 { print 1 }\nif 1 < 2 and not false { print 2 }\n"), 0);
}
END_TEST

START_TEST(test_duplicate_declaration)
{
    ASSERT_ERROR("stat dex = 0\nstat dex = 1\n", "stat 'dex' is already declared");
    ck_assert_int_eq(M.where[0].start, 13);
}
END_TEST

START_TEST(test_override_replaces)
{
    ck_assert_int_eq(compile("range close = 25 ft\noverride range close = 30 ft\n"), 0);
    int name = program_find_string(P, "close");
    const decl *d = program_find_decl(P, DK_RANGE, name);
    ck_assert_ptr_nonnull(d);
    ck_assert(d->overrides);
}
END_TEST

START_TEST(test_override_of_nothing)
{
    ASSERT_ERROR("override range close = 30 ft\n", "nothing to override");
}
END_TEST

START_TEST(test_procedure_arity)
{
    ASSERT_ERROR("procedure g(a, b) { return a }\nprint g(1)\n", "procedure g takes 2 arguments, not 1");
}
END_TEST

START_TEST(test_builtin_arity)
{
    ASSERT_ERROR("print floor(1, 2)\n", "floor() takes 1 argument, not 2: floor(x)");
    /* too many for a function that takes a range says so (it said "at least") */
    ASSERT_ERROR("print spend(1, 2, 3, 4)\n", "spend() takes 2 or 3 arguments, not 4: spend(c, slot [, n])");
    ASSERT_ERROR("print spend(1)\n", "spend() takes 2 or 3 arguments, not 1");
    ASSERT_ERROR("print min()\n", "min() takes at least 1 argument, not 0");
    ASSERT_ERROR("print acting(1)\n", "acting() takes no arguments, not 1: acting()");
    /* past what any number means */
    char text[2048] = "print min(0";
    for (int i = 0; i < 300; i++)
        strcat(text, ", 1");
    strcat(text, ")\n");
    ASSERT_ERROR(text, "min() takes at most 255 arguments, not 301");
}
END_TEST

/* A string given to the library may begin with a UTF-8 byte order mark: it
   is left out, and spans count from after it. */
START_TEST(test_byte_order_mark_left_out)
{
    ck_assert_int_eq(compile("\xEF\xBB\xBFstat dex = 0\n"), 0);
    ck_assert_int_eq(compile("\xEF\xBB\xBFprint 1 + \"x\"\n"), 1);
    ck_assert(has_msg("cannot add a number and a string"));
    ck_assert_uint_eq(M.where[0].start, 6); /* "1 + ...", as without the mark */
}
END_TEST

START_TEST(test_use_missing_module)
{
    ASSERT_ERROR("use no_such_module_here\n", "no module 'no_such_module_here'");
}
END_TEST

START_TEST(test_use_core_from_stdlib)
{
    ck_assert_int_eq(compile("use core\n"), 0);
    ck_assert_int_ge(P->ndecls, 1);
}
END_TEST

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/fray-compile-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(const char **names, int n)
{
    char path[256];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        unlink(path);
    }
    rmdir(tmpdir);
}

START_TEST(test_import_cycle)
{
    make_tmpdir();
    write_file("a.rules", "import \"b.rules\"\nstat a_stat = 1\n");
    write_file("b.rules", "import \"a.rules\"\nstat b_stat = 2\n");
    char path[256];
    snprintf(path, sizeof path, "%s/a.rules", tmpdir);
    int errs = compile_file(P, path, &S, NULL);
    const char *names[] = {"a.rules", "b.rules"};
    remove_tmpdir(names, 2);
    ck_assert_int_ge(errs, 1);
    ck_assert(has_msg("import cycle"));
}
END_TEST

START_TEST(test_import_ok_and_once)
{
    make_tmpdir();
    write_file("main.rules", "import \"lib.rules\"\nimport \"lib.rules\"\nprint lib_stat\n");
    write_file("lib.rules", "stat lib_stat = 2\n");
    char path[256];
    snprintf(path, sizeof path, "%s/main.rules", tmpdir);
    int errs = compile_file(P, path, &S, NULL);
    const char *names[] = {"main.rules", "lib.rules"};
    remove_tmpdir(names, 2);
    ck_assert_msg(errs == 0, "%s", M.text[0]);
    /* loaded once: no duplicate declaration */
    int n = 0;
    for (size_t i = 0; i < P->ndecls; i++)
        n += P->decls[i].kind == DK_STAT;
    ck_assert_int_eq(n, 1);
}
END_TEST

START_TEST(test_import_missing)
{
    make_tmpdir();
    write_file("main.rules", "import \"nope.rules\"\n");
    char path[256];
    snprintf(path, sizeof path, "%s/main.rules", tmpdir);
    int errs = compile_file(P, path, &S, NULL);
    const char *names[] = {"main.rules"};
    remove_tmpdir(names, 1);
    ck_assert_int_ge(errs, 1);
    ck_assert(has_msg("cannot import"));
}
END_TEST

START_TEST(test_import_escaping_rejected)
{
    ASSERT_ERROR("import \"../secret.rules\"\n", "..");
    memset(&M, 0, sizeof M);
    ck_assert_int_ge(compile("import \"/etc/passwd\"\n"), 1);
    ck_assert_int_ge(compile("import \"a/../../b.rules\"\n"), 1);
}
END_TEST

START_TEST(test_syntax_errors_counted)
{
    int errs = compile("print (1 + )\nprint 2\nprint 3d\nlet = 4\n");
    ck_assert_int_eq(errs, 3);
    ck_assert_int_eq(S.errors, 3);
}
END_TEST

static const decl *find(decl_kind k, const char *name)
{
    int id = program_find_string(P, name);
    ck_assert_int_ge(id, 0);
    const decl *d = program_find_decl(P, k, id);
    ck_assert_ptr_nonnull(d);
    return d;
}

START_TEST(test_decls_recorded)
{
    ck_assert_int_eq(compile("stat dex = 0\nstat level = 1 in 1..20\nresource hp max 10\n"
                             "procedure f(a, b) { return a + b }\ncondition prone { modify dex by -2 }\n"
                             "range close = 25 ft\n"),
                     0);
    const decl *dex = find(DK_STAT, "dex");
    ck_assert_int_ge(dex->value, 0);
    ck_assert_int_lt(dex->value, (int)P->nchunks);
    const decl *f = find(DK_PROCEDURE, "f");
    ck_assert_int_eq(f->nparams, 2);
    ck_assert_int_ge(f->body, 0);
    ck_assert_int_eq(P->chunks[f->body]->nparams, 2);
    ck_assert_int_eq(P->chunks[f->body]->kind, CHUNK_PROCEDURE);
    const decl *pr = find(DK_CONDITION, "prone");
    ck_assert_int_ge(pr->object, 0);
    const r_condition *prone = &P->rules->conditions[pr->object];
    ck_assert_int_eq(prone->nmods, 1);
    ck_assert_int_eq(prone->mods[0].op, MOD_ADD);
    ck_assert_int_eq(prone->mods[0].target, MODT_STAT);
    ck_assert_int_eq(prone->mods[0].index, program_decl_index(P, dex));
    ck_assert_int_eq(prone->mods[0].amount.kind, REXPR_CONST);
    ck_assert_int_eq(prone->mods[0].amount.v.num, -2);
    const decl *r = find(DK_RANGE, "close");
    ck_assert_int_ge(r->value, 0);
    ck_assert_int_eq(P->chunks[r->value]->kind, CHUNK_FORMULA);
    ck_assert_int_ge(P->nchunks, 5);
}
END_TEST

/* Lookups by name and by place go through hash maps: every one of many
 * declarations is found, the latest of a name wins, and an unknown name is
 * not found. */
START_TEST(test_many_decls_found_by_name)
{
    enum { N = 3000 };
    size_t cap = (size_t)N * 64, len = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    for (int k = 0; k < N; k++)
        len += (size_t)snprintf(text + len, cap - len, "stat s%d = %d\ncondition c%d { holds when s%d > 0 }\n", k, k, k,
                                k);
    len +=
        (size_t)snprintf(text + len, cap - len, "override stat s7 = 70\noverride condition c7 { holds when s7 > 1 }\n");
    ck_assert_int_eq(compile(text), 0);
    free(text);
    char name[16];
    for (int k = 0; k < N; k++) {
        snprintf(name, sizeof name, "c%d", k);
        const decl *c = find(DK_CONDITION, name);
        ck_assert_int_eq(rules_condition(P->rules, c->name), c->object);
        snprintf(name, sizeof name, "s%d", k);
        ck_assert_int_ge(rules_stat(P->rules, program_decl_index(P, find(DK_STAT, name))), 0);
    }
    /* the redeclared one: its latest decl, one condition, listed once */
    const decl *s7 = find(DK_STAT, "s7");
    ck_assert_int_eq(program_decl_index(P, s7), (int)P->ndecls - 2);
    ck_assert_int_eq(P->rules->nconditions, N);
    ck_assert_int_eq(P->rules->nholds_conditions, N);
    ck_assert_ptr_null(program_find_decl(P, DK_STAT, program_find_string(P, "c7")));
    ck_assert_int_eq(rules_condition(P->rules, program_find_string(P, "s7")), -1);
}
END_TEST

START_TEST(test_initiative_compiles_to_a_plan)
{
    ck_assert_int_eq(
        compile("stat dex = 0\n"
                "initiative {\n  mode static\n  score dex + 1\n  order lowest first\n  ties dex, 3, reroll\n}\n"),
        0);
    const r_initiative *in = &P->rules->initiative;
    ck_assert(in->present);
    ck_assert_int_eq(in->mode, INIT_STATIC);
    ck_assert(in->lowest_first);
    ck_assert_int_eq(in->score.kind, REXPR_CHUNK); /* an expression: a formula */
    ck_assert_int_eq(P->chunks[in->score.chunk]->kind, CHUNK_FORMULA);
    ck_assert_int_eq(in->nties, 3);
    ck_assert_int_eq(in->ties[0].kind, TIE_EXPR);
    ck_assert_int_eq(in->ties[0].e.kind, REXPR_CHUNK); /* a stat of the creature */
    ck_assert_int_eq(in->ties[1].kind, TIE_EXPR);
    ck_assert_int_eq(in->ties[1].e.kind, REXPR_CONST); /* a literal */
    ck_assert_int_eq(in->ties[1].e.v.num, 3);
    ck_assert_int_eq(in->ties[2].kind, TIE_REROLL);
}
END_TEST

START_TEST(test_commands_become_chunks)
{
    ck_assert_int_eq(compile("print 1\nlet x = 2\nprint x\n"), 0);
    ck_assert_int_eq(P->ncommands, 3);
    for (size_t i = 0; i < P->ncommands; i++) {
        ck_assert_int_lt(P->commands[i], (int)P->nchunks);
        ck_assert_int_eq(P->chunks[P->commands[i]]->kind, CHUNK_COMMAND);
    }
    ck_assert_int_eq(P->nglobals, 1);
}
END_TEST

/* A compile takes no more memory than a command may (--limit memory): a
   text too big for it stops with that limit's error, and the budget in
   force before is in force again after. */
START_TEST(test_compile_memory_budget)
{
    size_t len = 0, cap = 256 << 10;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    for (int i = 0; len + 64 < cap; i++)
        len += (size_t)snprintf(text + len, cap - len, "print %d * 2 + (%d - 1) // 3\n", i, i);
    compile_options o = {.max_memory = (size_t)1 << 20};
    ck_assert_int_ge(compile_string(P, "big.rules", text, len, &S, &o), 1);
    ck_assert(has_msg("memory limit reached (1 MiB to compile big.rules; see --limit memory=N)"));
    ck_assert(!mem_get_budget().on);
    /* under a budget of its own, the caller's comes back */
    mem_set_budget((size_t)64 << 20);
    mem_budget outer = mem_get_budget();
    o.max_memory = (size_t)256 << 20;
    ck_assert_int_eq(compile_string(P, "small.rules", "print 1\n", 8, &S, &o), 0);
    mem_budget after = mem_get_budget();
    mem_set_budget(SIZE_MAX);
    ck_assert(after.on && after.end == outer.end);
    /* with room enough, the big text compiles */
    program_free(P);
    P = program_new();
    o.max_memory = (size_t)512 << 20;
    ck_assert_int_eq(compile_string(P, "big.rules", text, len, &S, &o), 0);
    free(text);
}
END_TEST

START_TEST(test_compile_expression)
{
    int ck = -1;
    const char *e = "1 + 2 * 3";
    ck_assert_int_eq(compile_expression(P, "<eval>", e, strlen(e), &S, NULL, &ck), 0);
    ck_assert_int_ge(ck, 0);
    ck_assert_int_eq(P->chunks[ck]->kind, CHUNK_FORMULA);
    ck_assert_int_ge(compile_expression(P, "<eval>", "1 +", 3, &S, NULL, &ck), 1);
}
END_TEST

static void check_chunks_well_formed(void)
{
    ck_assert_int_gt(P->nchunks, 0);
    for (size_t i = 0; i < P->nchunks; i++) {
        const chunk *c = P->chunks[i];
        ck_assert_int_gt(c->len, 0);
        for (size_t k = 0; k < c->len; k++)
            ck_assert_msg(c->spans[k].end > c->spans[k].start, "chunk %zu (%s) byte %zu has an empty span", i,
                          c->name ? c->name : "?", k);
        size_t at = 0;
        while (at < c->len) {
            uint8_t op = c->code[at];
            ck_assert_msg(op < OP_COUNT, "chunk %zu: invalid opcode %d at %zu", i, op, at);
            if (op == OP_CONST) {
                unsigned idx = c->code[at + 1] | (unsigned)c->code[at + 2] << 8;
                ck_assert_uint_lt(idx, c->nconsts);
            }
            /* every byte of an instruction shares its span */
            for (size_t k = 1; k <= opcode_operands[op]; k++)
                ck_assert_int_eq(c->spans[at + k].start, c->spans[at].start);
            at += 1 + opcode_operands[op];
        }
        ck_assert_msg(at == c->len, "chunk %zu: last instruction runs past the end", i);
        ck_assert_int_eq(c->code[c->len - 1], OP_RETURN);
    }
}

START_TEST(test_spans_and_opcodes_valid)
{
    ck_assert_int_eq(
        compile("stat dex = 0\nstat level = 1 in 1..20\nstat bonus = dex * 2\n"
                "range reach = 5 ft * level\n"
                "procedure f(n) { if n <= 0 { return 0 } else { return n + f(n - 1) } }\n"
                "check init(self) = d20 + self.dex\ninitiative { roll init; score init + dex; order highest first }\n"
                "let t = 0\nfor i in [1, 2, 3] { t += i }\nrepeat 2 { print roll 2d6 + 1 }\n"
                "print t > 2 and true or false, f(3), 7 // 2, -t\n"
                "creature a { dex 1 }\nprint a.dex\n"),
        0);
    check_chunks_well_formed();
}
END_TEST

START_TEST(test_spans_and_opcodes_valid_with_core)
{
    ck_assert_int_eq(compile("use core\nprint 1\n"), 0);
    check_chunks_well_formed();
}
END_TEST

/* The most a chunk holds on the stack at once, from its frame's base: a
   value for each operand still waiting, the branches of a choice counted
   once, a loop's list, index and element, the parameters. */
START_TEST(test_chunk_stack_need)
{
    static const struct {
        const char *src;
        uint32_t need;
    } cases[] = {
        {"print 1 + (2 + (3 + (4 + 5)))\n", 5},
        {"print 1 + 2 + 3 + 4 + 5\n", 2},
        {"print true ? 1 : (2 + 3)\n", 2},
        {"print true and false or true and false\n", 1},
        {"print [1, 2, [3, 4, 5]], 6\n", 5},
        {"for i in [1, 2, 3] { print i }\n", 4},
        {"repeat 3 { print 1, 2 }\n", 3},
        {"procedure f(a, b, c) { return a }\n", 4},
        {"procedure g(a) { let x = a + 1\n if x > 2 { return x * (a + 1) } else { return 0 } }\n", 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(compile(cases[i].src), 0);
        const chunk *c = P->chunks[P->nchunks - 1];
        ck_assert_msg(c->max_stack == cases[i].need, "%s holds %u at once, not %u", cases[i].src, c->max_stack,
                      cases[i].need);
    }
}
END_TEST

/* What no run of a chunk can hold is an error where it is deepest. */
START_TEST(test_chunk_too_much_at_once)
{
    char src[16384] = "print ";
    size_t at = strlen(src);
    for (int level = 0; level < 17; level++) {
        at += (size_t)snprintf(src + at, sizeof src - at, "max(");
        for (int k = 0; k < 250; k++)
            at += (size_t)snprintf(src + at, sizeof src - at, "1,");
    }
    at += (size_t)snprintf(src + at, sizeof src - at, "7");
    for (int level = 0; level < 17; level++)
        at += (size_t)snprintf(src + at, sizeof src - at, ")");
    snprintf(src + at, sizeof src - at, "\n");
    ASSERT_ERROR(src, "too much to work out at once: this holds 4251 values");
    /* the deepest point: the innermost call's last argument */
    ck_assert_int_eq(M.where[0].start, (uint32_t)(strchr(src, '7') - src));
}
END_TEST

/* Whether the last chunk compiled holds opcode op. */
static bool last_chunk_has(uint8_t op)
{
    const chunk *c = P->chunks[P->nchunks - 1];
    for (size_t at = 0; at < c->len; at += 1 + opcode_operands[c->code[at]])
        if (c->code[at] == op)
            return true;
    return false;
}

START_TEST(test_roll_of_literals_is_one_instruction)
{
    ck_assert_int_eq(compile("print roll d20 + 5 - 1d4\n"), 0);
    ck_assert(last_chunk_has(OP_ROLL_CONST));
    ck_assert(!last_chunk_has(OP_ROLL_SUM));
    const dexpr *d = &P->dice[P->ndice - 1];
    ck_assert_int_eq(d->nterms, 3);
    ck_assert(d->terms[1].is_constant);
    ck_assert_int_eq(d->terms[1].constant, 5);
    ck_assert_int_eq(d->terms[2].sign, -1);
    /* a name among the terms is read at run time */
    ck_assert_int_eq(compile("let bonus = 2\nprint roll d20 + bonus\n"), 0);
    ck_assert(last_chunk_has(OP_ROLL_SUM));
    ck_assert(!last_chunk_has(OP_ROLL_CONST));
    /* a number alone is no dice roll */
    ck_assert_int_eq(compile("print roll 5\n"), 0);
    ck_assert(!last_chunk_has(OP_ROLL_CONST));
}
END_TEST

START_TEST(test_opcode_tables)
{
    ck_assert_str_eq(opcode_names[OP_CONST], "CONST");
    ck_assert_int_eq(opcode_operands[OP_CONST], 2);
    ck_assert_int_eq(opcode_operands[OP_CALL], 3);
    ck_assert_int_eq(opcode_operands[OP_ADD], 0);
    for (int i = 0; i < OP_COUNT; i++) {
        ck_assert_ptr_nonnull(opcode_names[i]);
        ck_assert_ptr_nonnull(opcode_meanings[i]);
    }
}
END_TEST

START_TEST(test_error_leaves_no_commands_for_bad_line)
{
    ck_assert_int_ge(compile("print nope_name\n"), 1);
    ck_assert_int_eq(M.n, 1);
}
END_TEST

/* A rebuild's copy of a settled program (a checkpoint) takes the arrays of
   sources, chunks and commands of the program it replaces only when they
   begin with the checkpoint's: the program it was copied from or a copy of
   it, however far they went on and settled again; not one cut back below
   what the checkpoint's keep holds, not one unrelated, and not when the
   checkpoint has something of its own. */
START_TEST(test_arrays_taken_only_when_shared)
{
    ck_assert_int_eq(compile("let x = 1\nprint x\n"), 0);
    program_settle(P);
    program *cp = program_clone(P);
    ck_assert_ptr_nonnull(cp);
    ck_assert(program_arrays_shared(cp, P));
    ck_assert_int_eq(compile("print x + 1\n"), 0);
    ck_assert(program_arrays_shared(cp, P));
    program_settle(P);
    ck_assert_int_eq(compile("print x + 2\n"), 0);
    ck_assert(program_arrays_shared(cp, P));
    /* not one that went back on the checkpoint's keep */
    program *cut = program_clone(cp);
    ck_assert_ptr_nonnull(cut);
    program_release(cut, cp->nsources - 1, cp->nchunks - 1);
    ck_assert(!program_arrays_shared(cp, cut));
    ck_assert_int_eq(compile_string(cut, "t.rules", "print 5\n", 8, &S, NULL), 0);
    program_settle(cut);
    ck_assert(!program_arrays_shared(cp, cut)); /* its next keep does not continue the checkpoint's */
    program_free(cut);
    /* not one unrelated */
    program *other = program_new();
    ck_assert_ptr_nonnull(other);
    ck_assert_int_eq(compile_string(other, "t.rules", "let x = 1\nprint x\n", 18, &S, NULL), 0);
    program_settle(other);
    ck_assert(!program_arrays_shared(cp, other));
    program_free(other);
    /* taken: the copy's arrays are the checkpoint's, and it compiles on */
    program *q = program_clone_part(cp, false);
    ck_assert_ptr_nonnull(q);
    program_take_arrays(q, cp, P);
    program_free(P);
    P = q;
    ck_assert_uint_eq(q->nsources, cp->nsources);
    ck_assert_uint_eq(q->nchunks, cp->nchunks);
    ck_assert_uint_eq(q->ncommands, cp->ncommands);
    for (size_t i = 0; i < cp->nchunks; i++)
        ck_assert_ptr_eq(q->chunks[i], cp->chunks[i]);
    for (size_t i = 0; i < cp->ncommands; i++)
        ck_assert_int_eq(q->commands[i], cp->commands[i]);
    ck_assert_int_eq(compile("print x + 3\n"), 0);
    ck_assert_uint_eq(q->ncommands, cp->ncommands + 1);
    /* not when the checkpoint holds something of its own */
    ck_assert_int_eq(compile_string(cp, "t.rules", "print 6\n", 8, &S, NULL), 0);
    ck_assert(!program_arrays_shared(cp, q));
    program_free(cp);
}
END_TEST

/* A copy that holds its sources, chunks and commands through its keeps
   alone (a checkpoint) gives a copy of it the arrays of the program it
   was copied from, whichever of them a program cut back and compiled
   again between two keeps. */
START_TEST(test_kept_copy_makes_the_arrays_again)
{
    ck_assert_int_eq(compile("let x = 1\nprint x\n"), 0);
    program_settle(P);
    ck_assert_int_eq(compile("print x + 1\nprint 2\n"), 0);
    program_settle(P);
    ck_assert_int_eq(compile("print 3\n"), 0);
    program_release(P, P->nsources - 2, P->nchunks - 3); /* below the last keep */
    ck_assert_int_eq(compile("print 4\nprint 5\n"), 0);
    program_settle(P);
    program *kept = program_clone_kept(P);
    ck_assert_ptr_nonnull(kept);
    ck_assert_ptr_null(kept->chunks);
    program *copy = program_clone(kept);
    ck_assert_ptr_nonnull(copy);
    ck_assert_uint_eq(copy->nsources, P->nsources);
    ck_assert_uint_eq(copy->nchunks, P->nchunks);
    ck_assert_uint_eq(copy->ncommands, P->ncommands);
    for (size_t i = 0; i < P->nsources; i++)
        ck_assert_ptr_eq(copy->sources[i], P->sources[i]);
    for (size_t i = 0; i < P->nchunks; i++)
        ck_assert_ptr_eq(copy->chunks[i], P->chunks[i]);
    for (size_t i = 0; i < P->ncommands; i++)
        ck_assert_int_eq(copy->commands[i], P->commands[i]);
    ck_assert_int_eq(compile_string(copy, "t.rules", "print x\n", 8, &S, NULL), 0);
    program_free(copy);
    /* one with something of its own since its keep is copied whole */
    ck_assert_int_eq(compile("print 6\n"), 0);
    program *whole = program_clone_kept(P);
    ck_assert_ptr_nonnull(whole);
    ck_assert_ptr_nonnull(whole->chunks);
    program_free(whole);
    program_free(kept);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("compiler");
    TCase *e = tcase_create("errors");
    tcase_add_checked_fixture(e, setup, teardown);
    tcase_add_test(e, test_unknown_name_did_you_mean);
    tcase_add_test(e, test_commands_in_bodies_are_checked);
    tcase_add_test(e, test_unknown_name_far_has_no_suggestion);
    tcase_add_test(e, test_unknown_function_did_you_mean);
    tcase_add_test(e, test_retired_words_say_what_to_write);
    tcase_add_test(e, test_type_distance_plus_duration);
    tcase_add_test(e, test_type_distance_plus_number);
    tcase_add_test(e, test_type_dice_plus_string);
    tcase_add_test(e, test_dice_compared_without_roll);
    tcase_add_test(e, test_dice_as_condition);
    tcase_add_test(e, test_number_is_not_a_condition);
    tcase_add_test(e, test_roll_is_not_a_condition);
    tcase_add_test(e, test_distance_condition);
    tcase_add_test(e, test_boolean_conditions_compile);
    tcase_add_test(e, test_duplicate_declaration);
    tcase_add_test(e, test_override_replaces);
    tcase_add_test(e, test_override_of_nothing);
    tcase_add_test(e, test_procedure_arity);
    tcase_add_test(e, test_builtin_arity);
    tcase_add_test(e, test_syntax_errors_counted);
    tcase_add_test(e, test_error_leaves_no_commands_for_bad_line);
    suite_add_tcase(s, e);
    TCase *m = tcase_create("modules");
    tcase_add_checked_fixture(m, setup, teardown);
    tcase_add_test(m, test_byte_order_mark_left_out);
    tcase_add_test(m, test_use_missing_module);
    tcase_add_test(m, test_use_core_from_stdlib);
    tcase_add_test(m, test_import_cycle);
    tcase_add_test(m, test_import_ok_and_once);
    tcase_add_test(m, test_import_missing);
    tcase_add_test(m, test_import_escaping_rejected);
    suite_add_tcase(s, m);
    TCase *o = tcase_create("output");
    tcase_add_checked_fixture(o, setup, teardown);
    tcase_add_test(o, test_decls_recorded);
    tcase_add_test(o, test_many_decls_found_by_name);
    tcase_add_test(o, test_initiative_compiles_to_a_plan);
    tcase_add_test(o, test_commands_become_chunks);
    tcase_add_test(o, test_compile_expression);
    tcase_add_test(o, test_compile_memory_budget);
    tcase_add_test(o, test_spans_and_opcodes_valid);
    tcase_add_test(o, test_spans_and_opcodes_valid_with_core);
    tcase_add_test(o, test_opcode_tables);
    tcase_add_test(o, test_roll_of_literals_is_one_instruction);
    tcase_add_test(o, test_chunk_stack_need);
    tcase_add_test(o, test_chunk_too_much_at_once);
    tcase_add_test(o, test_arrays_taken_only_when_shared);
    tcase_add_test(o, test_kept_copy_makes_the_arrays_again);
    suite_add_tcase(s, o);
    return s;
}

int main(void)
{
    return check_main(make_suite());
}
