/* files: rules text is UTF-8 without NUL bytes; a file that must stay in
 * its directory is refused when a symbolic link leads out of it; and the
 * compiler reads every file (the one compiled, imports, modules) through
 * its options' reader, so that a reader can serve files from elsewhere. */
#define _DEFAULT_SOURCE /* mkdtemp, symlink */
#include "tests/unit/check_main.h"
#include "tests/unit/scratch_util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fray.h"
#include "lang/compile.h"
#include "lang/files.h"
#include "runtime/api/api_files.h"
#include "runtime/base/fio.h"
#include "runtime/base/mem.h"

/* --- rules text ------------------------------------------------------------------- */

static size_t text_end(const char *s)
{
    return files_text_end(s, strlen(s));
}

START_TEST(test_rules_text_is_utf8)
{
    ck_assert_uint_eq(text_end("print 1\n"), 8);
    ck_assert_uint_eq(text_end("# caf\xc3\xa9 \xc2\xa7 \xe2\x82\xac \xf0\x9f\x8e\xb2\n"), 20);
    ck_assert_uint_eq(text_end(""), 0);
    /* the highest code point, U+10FFFF, and the last before the surrogates */
    ck_assert_uint_eq(text_end("\xf4\x8f\xbf\xbf"), 4);
    ck_assert_uint_eq(text_end("\xed\x9f\xbf"), 3);
}
END_TEST

START_TEST(test_rules_text_stops_at_the_first_bad_byte)
{
    ck_assert_uint_eq(files_text_end("ab\0cd", 5), 2);        /* a NUL byte */
    ck_assert_uint_eq(text_end("print caf\xe9\n"), 9);        /* Latin-1 */
    ck_assert_uint_eq(text_end("x\x80"), 1);                  /* a lone continuation byte */
    ck_assert_uint_eq(text_end("x\xc0\xaf"), 1);              /* an overlong '/' */
    ck_assert_uint_eq(text_end("x\xc1\xbf"), 1);              /* overlong */
    ck_assert_uint_eq(text_end("x\xe0\x80\xaf"), 1);          /* overlong, three bytes */
    ck_assert_uint_eq(text_end("x\xf0\x80\x80\xaf"), 1);      /* overlong, four bytes */
    ck_assert_uint_eq(text_end("x\xed\xa0\x80"), 1);          /* a surrogate */
    ck_assert_uint_eq(text_end("x\xf4\x90\x80\x80"), 1);      /* past U+10FFFF */
    ck_assert_uint_eq(text_end("x\xf5\x80\x80\x80"), 1);      /* no such lead byte */
    ck_assert_uint_eq(text_end("x\xe2\x82"), 1);              /* cut short at the end */
    ck_assert_uint_eq(text_end("x\xe2\x82y"), 1);             /* cut short before text */
    ck_assert_uint_eq(text_end("\xef\xbb\xbfprint 1\n"), 11); /* a byte order mark is UTF-8 */
}
END_TEST

/* --- reading inside a directory ----------------------------------------------------- */

static void make_dir(void)
{
    make_scratch_dir("files");
}

/* files_read of name in the folder's `rules`, which it must stay in */
static int read_in_rules(const char *name, bool follow, char **text, size_t *len)
{
    return files_read(in_dir(name), in_dir("rules"), follow, 1 << 20, text, len);
}

START_TEST(test_a_link_out_of_the_directory_is_refused)
{
    make_dir();
    ck_assert_int_eq(mkdir(in_dir("rules"), 0700), 0);
    ck_assert_int_eq(mkdir(in_dir("rules/sub"), 0700), 0);
    write_text(in_dir("secret.rules"), "stat secret = 42\n");
    write_text(in_dir("rules/inside.rules"), "stat inside = 1\n");
    ck_assert_int_eq(symlink("../secret.rules", in_dir("rules/out.rules")), 0);
    ck_assert_int_eq(symlink("..", in_dir("rules/up")), 0);
    ck_assert_int_eq(symlink("../inside.rules", in_dir("rules/sub/back.rules")), 0);
    char *text = NULL;
    size_t len = 0;
    /* a file, a link to a file and a link through a folder that leave it */
    ck_assert_int_eq(read_in_rules("rules/out.rules", false, &text, &len), FILES_ERR_OUTSIDE);
    ck_assert_int_eq(read_in_rules("rules/up/secret.rules", false, &text, &len), FILES_ERR_OUTSIDE);
    ck_assert_ptr_null(text);
    /* a link that stays inside is as good as the file */
    ck_assert_int_eq(read_in_rules("rules/sub/back.rules", false, &text, &len), 0);
    ck_assert_str_eq(text, "stat inside = 1\n");
    mem_free(text, len + 1);
    /* unless the option says links may lead anywhere */
    ck_assert_int_eq(read_in_rules("rules/out.rules", true, &text, &len), 0);
    ck_assert_str_eq(text, "stat secret = 42\n");
    mem_free(text, len + 1);
    /* no file: no such file, whatever the folder */
    ck_assert_int_eq(read_in_rules("rules/none.rules", false, &text, &len), ENOENT);
    ck_assert_int_eq(files_read(in_dir("x/none.rules"), in_dir("x"), false, 100, &text, &len), ENOENT);
    remove_dir();
}
END_TEST

START_TEST(test_what_is_not_a_file_is_refused_inside_too)
{
    make_dir();
    ck_assert_int_eq(mkdir(in_dir("rules"), 0700), 0);
    ck_assert_int_eq(mkdir(in_dir("rules/d.rules"), 0700), 0);
    ck_assert_int_eq(mkfifo(in_dir("rules/p.rules"), 0600), 0);
    write_text(in_dir("rules/big.rules"), "print 1234567890\n");
    char *text = NULL;
    size_t len = 0;
    ck_assert_int_eq(read_in_rules("rules/d.rules", false, &text, &len), FIO_ERR_DIRECTORY);
    ck_assert_int_eq(read_in_rules("rules/p.rules", false, &text, &len), FIO_ERR_FIFO); /* never waits */
    ck_assert_int_eq(files_read(in_dir("rules/big.rules"), in_dir("rules"), false, 10, &text, &len), FIO_ERR_TOO_BIG);
    ck_assert_ptr_null(text);
    remove_dir();
}
END_TEST

START_TEST(test_errors_in_words)
{
    char why[200];
    files_error_text(ENOENT, 1 << 30, why, sizeof why);
    ck_assert_str_eq(why, "no such file");
    files_error_text(FIO_ERR_TOO_BIG, (size_t)3 << 20, why, sizeof why);
    ck_assert_str_eq(why, "is too large (more than 3 MiB; see --limit memory=N)");
    files_error_text(FIO_ERR_FIFO, 1, why, sizeof why);
    ck_assert_str_eq(why, "is a pipe or socket, not a file");
    files_error_text(FILES_ERR_OUTSIDE, 1, why, sizeof why);
    ck_assert_str_eq(why, "leads out of its directory through a symbolic link (see --follow-symlinks)");
    files_error_text(EACCES, 1, why, sizeof why);
    ck_assert_str_eq(why, "permission denied");
}
END_TEST

/* --- the compiler's reader ------------------------------------------------------------- */

typedef struct served {
    const char *path, *text; /* what the reader has */
    const char *module;      /* served for `use` of this name from any search path */
} served;

typedef struct reader_log {
    const served *files;
    int nfiles;
    char asked[16][200]; /* "path|within|module" of each file asked for */
    int nasked;
} reader_log;

static int serve(void *user, const compile_options *opts, compile_read *rq, char **text, size_t *len)
{
    (void)opts;
    reader_log *log = user;
    if (log->nasked < 16)
        snprintf(log->asked[log->nasked++], sizeof log->asked[0], "%s|%s|%s", rq->path, rq->within ? rq->within : "-",
                 rq->module ? rq->module : "-");
    for (int i = 0; i < log->nfiles; i++) {
        const served *f = &log->files[i];
        bool by_module = f->module && rq->module && !strcmp(f->module, rq->module);
        if (!strcmp(f->path, rq->path) || by_module) {
            if (by_module)
                rq->served_as = f->path;
            *text = mem_strndup(f->text, strlen(f->text));
            *len = strlen(f->text);
            return 0;
        }
    }
    return ENOENT;
}

typedef struct errors {
    int n;
    char text[8][400];
} errors;

static void keep_error(void *user, const diag *d)
{
    errors *e = user;
    if (d->level == DIAG_ERROR && e->n < 8)
        snprintf(e->text[e->n++], sizeof e->text[0], "%s", d->message);
}

START_TEST(test_every_file_comes_through_the_reader)
{
    /* none of these is on disk: the reader alone has them */
    static const served files[] = {
        {"nowhere/main.rules", "use mine\nimport \"sub/a.rules\"\nimport \"./sub/a.rules\"\nprint twice(three())\n",
         NULL},
        {"nowhere/sub/a.rules", "procedure three() { return 3 }\n", NULL},
        {"kept/elsewhere/mine.rules", "procedure twice(x) { return 2 * x }\n", "mine"},
    };
    reader_log log = {.files = files, .nfiles = 3};
    const char *const search[] = {"lib"};
    compile_options o = {.read = serve, .read_user = &log, .search_path = search, .npaths = 1};
    program *p = program_new();
    errors e = {0};
    diag_sink sink = {.fn = keep_error, .user = &e};
    ck_assert_int_eq(compile_file(p, "nowhere/main.rules", &sink, &o), 0);
    ck_assert_int_eq(e.n, 0);
    /* the file, the module (its own folder first, then the search path,
       where the reader serves it from where it kept it), the import once
       (`./sub/a.rules` is the same file) */
    ck_assert_int_eq(log.nasked, 4);
    ck_assert_str_eq(log.asked[0], "nowhere/main.rules|-|-");
    ck_assert_str_eq(log.asked[1], "nowhere/mine.rules|nowhere|-");
    ck_assert_str_eq(log.asked[2], "lib/mine.rules|lib|mine");
    ck_assert_str_eq(log.asked[3], "nowhere/sub/a.rules|nowhere|-");
    /* the module is named as it was served: its own imports start there */
    bool named = false;
    for (size_t i = 0; i < p->nsources; i++)
        named |= !strcmp(p->sources[i]->name, "kept/elsewhere/mine.rules");
    ck_assert(named);
    program_free(p);
}
END_TEST

START_TEST(test_a_file_not_rules_text_is_not_shown)
{
    static const served files[] = {
        {"d/main.rules", "import \"data.rules\"\n", NULL},
        {"d/data.rules", "root:x:0:0:secret\n\x01\x02\xff binary\n", NULL},
        {"d/other.rules", "import \"notes.txt\"\n", NULL},
    };
    reader_log log = {.files = files, .nfiles = 3};
    compile_options o = {.read = serve, .read_user = &log};
    program *p = program_new();
    errors e = {0};
    diag_sink sink = {.fn = keep_error, .user = &e};
    ck_assert_int_eq(compile_file(p, "d/main.rules", &sink, &o), 1);
    ck_assert_str_eq(e.text[0], "cannot import 'data.rules': 'd/data.rules' is not rules text "
                                "(byte 0xff is not UTF-8 at line 2, column 3)");
    /* and a name that is not a rules file's is not even asked for */
    ck_assert_int_eq(compile_file(p, "d/other.rules", &sink, &o), 1);
    ck_assert_str_eq(e.text[1],
                     "cannot import 'notes.txt': only rules files are imported (a name that ends in .rules)");
    ck_assert_int_eq(log.nasked, 3);
    program_free(p);
}
END_TEST

/* --- a save's file records --------------------------------------------------------------- */

/* FNV-1a 64, as session files check their groups with */
static uint64_t fnv(uint64_t h, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 0x100000001b3u;
    return h;
}

/* A saved session in format `format` with one entry: a rules file that
 * says it was read from path, whose text imports `import`. */
static void write_save(const char *save, int format, const char *path, const char *import)
{
    char header[64], entry[512], text[128];
    snprintf(header, sizeof header, "fray session %d\noption seed 0\n", format);
    snprintf(text, sizeof text, "import \"%s\"\n", import);
    snprintf(entry, sizeof entry, "file %zu %s\n%s\n", strlen(text), path, text);
    uint64_t h1 = fnv(0xcbf29ce484222325u, header), h2 = fnv(h1, entry);
    FILE *out = fopen(save, "w");
    ck_assert_ptr_nonnull(out);
    fprintf(out, "%scheck %016llx\n%scheck %016llx\nend\n", header, (unsigned long long)h1, entry,
            (unsigned long long)h2);
    ck_assert_int_eq(fclose(out), 0);
}

static void count_name(void *user, const char *name)
{
    (void)name;
    ++*(int *)user;
}

/* Creatures in play after loading the save, or -1 when it did not load. */
static int creatures_after_loading(const char *save)
{
    fray_session *s = fray_session_open(NULL);
    ck_assert_ptr_nonnull(s);
    int n = -1;
    if (fray_session_load(s, save) == FRAY_OK) {
        n = 0;
        fray_creatures(fray_session_context(s), count_name, &n);
    }
    fray_session_close(s);
    return n;
}

START_TEST(test_a_file_record_reads_nothing_from_disk)
{
    make_dir();
    ck_assert_int_eq(mkdir(in_dir("outside"), 0700), 0);
    write_text(in_dir("outside/spy.rules"), "creature spy side enemies { }\n");
    ck_assert_int_eq(symlink("../outside/spy.rules", in_dir("outside/link.rules")), 0);
    ck_assert_int_eq(mkdir(in_dir("elsewhere"), 0700), 0);
    ck_assert_int_eq(symlink("../outside/spy.rules", in_dir("elsewhere/link.rules")), 0);
    /* format 2: the files of an entry are its own; a path that puts its
       imports beside a file on disk reaches nothing there */
    write_save(in_dir("v2"), 2, in_dir("outside/x.rules"), "spy.rules");
    ck_assert_int_eq(creatures_after_loading(in_dir("v2")), 0);
    /* format 1 kept no files: its imports are read from disk, inside the
       folder of the file's path, as a rules file's are */
    write_save(in_dir("v1"), 1, in_dir("outside/x.rules"), "spy.rules");
    ck_assert_int_eq(creatures_after_loading(in_dir("v1")), 1);
    write_save(in_dir("v1-in"), 1, in_dir("outside/x.rules"), "link.rules");
    ck_assert_int_eq(creatures_after_loading(in_dir("v1-in")), 1);
    write_save(in_dir("v1-out"), 1, in_dir("elsewhere/x.rules"), "link.rules");
    ck_assert_int_eq(creatures_after_loading(in_dir("v1-out")), 0);
    remove_dir();
}
END_TEST

/* --- a simulation reads each file once ----------------------------------------------------- */

typedef struct read_count {
    int scenario, side;
} read_count;

static int count_reads(void *user, const compile_options *opts, compile_read *rq, char **text, size_t *len)
{
    read_count *c = user;
    c->scenario += strstr(rq->path, "scenario.rules") != NULL;
    c->side += strstr(rq->path, "side.rules") != NULL;
    return compile_read_disk(opts, rq, text, len);
}

START_TEST(test_a_simulation_reads_each_file_once)
{
    make_dir();
    write_text(in_dir("side.rules"), "tactic closer { self: attack nearest(self, enemies(self)) }\n"
                                     "creature wolf x2 side enemies tactic closer { level 2; max_hp 12 }\n");
    write_text(in_dir("scenario.rules"), "use legend\nimport \"side.rules\"\n"
                                         "creature dorn side party tactic closer { level 6; max_hp 52 }\n"
                                         "place dorn at C3\nplace wolf_1 at D3\nplace wolf_2 at C4\n"
                                         "begin encounter\nroll initiative\nfight\n");
    fray *f = fray_open(&(fray_options){.quiet = true});
    ck_assert_ptr_nonnull(f);
    read_count counts = {0};
    api_read_through(f, count_reads, &counts);
    fray_sim_result *r = NULL;
    fray_sim_options o = {.runs = 16, .threads = 4, .seed = 1};
    ck_assert_int_eq(fray_sim(f, in_dir("scenario.rules"), &o, &r), FRAY_OK);
    ck_assert_uint_eq(r->runs, 16);
    /* four threads compiled it; one read */
    ck_assert_int_eq(counts.scenario, 1);
    ck_assert_int_eq(counts.side, 1);
    fray_sim_free(r);
    fray_close(f);
    remove_dir();
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("files");
    TCase *t = tcase_create("text");
    tcase_add_test(t, test_rules_text_is_utf8);
    tcase_add_test(t, test_rules_text_stops_at_the_first_bad_byte);
    suite_add_tcase(s, t);
    TCase *r = tcase_create("reading");
    tcase_add_test(r, test_a_link_out_of_the_directory_is_refused);
    tcase_add_test(r, test_what_is_not_a_file_is_refused_inside_too);
    tcase_add_test(r, test_errors_in_words);
    suite_add_tcase(s, r);
    TCase *c = tcase_create("compiler");
    tcase_add_test(c, test_every_file_comes_through_the_reader);
    tcase_add_test(c, test_a_file_not_rules_text_is_not_shown);
    suite_add_tcase(s, c);
    TCase *v = tcase_create("sessions");
    tcase_add_test(v, test_a_file_record_reads_nothing_from_disk);
    tcase_add_test(v, test_a_simulation_reads_each_file_once);
    suite_add_tcase(s, v);
    return s;
}

int main(void)
{
    return check_main(make_suite());
}
