/* libFuzzer harness: loading saved sessions and journals, and replaying
 * what was read. The first byte says how the rest is read:
 *
 *   '0' (any byte that is 0 modulo 3): the rest is a session file as it
 *       is, read as a save (which must be whole and hold together, or be
 *       refused) and as a journal (read up to its last complete group);
 *   '1' (1 modulo 3): the rest is records, written as a save: the harness
 *       writes the header (unless the records start with their own
 *       `fray session N` line), the records, a correct `check` line for
 *       each line of the input that starts with `check`, and `end`;
 *   '2' (2 modulo 3): the same records written as a journal (no `end`),
 *       recovered whole and cut short where the first byte says (byte / 3
 *       out of 85 of its length).
 *
 * So mutations get past the checksums to the record parser and the
 * replay. The bytes of a record that holds text (command, file, source)
 * are copied as they are, as its length says. Refusing is fine; a crash,
 * a sanitizer report, a leak or a hang is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fray.h"
#include "fuzz/fuzz.h"

/* --- writing records with their checks ------------------------------------- */

typedef struct out {
    uint8_t *buf;
    size_t n, cap;
    uint64_t hash; /* FNV-1a 64 of every byte so far but the check lines */
} out;

static void put(out *o, const void *data, size_t n, bool hashed)
{
    if (o->n + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (o->n + n > cap)
            cap *= 2;
        uint8_t *grown = realloc(o->buf, cap);
        if (!grown)
            abort(); /* the harness's own memory: nothing to test here */
        o->buf = grown;
        o->cap = cap;
    }
    memcpy(o->buf + o->n, data, n);
    o->n += n;
    for (size_t i = 0; hashed && i < n; i++)
        o->hash = (o->hash ^ ((const uint8_t *)data)[i]) * 0x100000001b3u;
}

static bool starts(const uint8_t *line, size_t n, const char *word)
{
    size_t k = strlen(word);
    return n >= k && !memcmp(line, word, k);
}

/* The byte count of a record that holds text (`command 24 asks`, `file 80
   PATH`, `source 310 PATH`, `source-use NAME 120 PATH`), or -1. */
static long long block_length(const uint8_t *line, size_t n)
{
    static const char *const words[] = {"command ", "file ", "file-asks ", "source ", "source-use "};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        if (!starts(line, n, words[w]))
            continue;
        size_t at = strlen(words[w]);
        if (w == 4) { /* the module's name first */
            while (at < n && line[at] != ' ')
                at++;
            at++;
        }
        long long len = 0;
        size_t digits = 0;
        while (at < n && line[at] >= '0' && line[at] <= '9' && digits < 18) {
            len = len * 10 + (line[at++] - '0');
            digits++;
        }
        return digits ? len : -1;
    }
    return -1;
}

/* The records of in, framed: header, records, checks, and end for a save. */
static void frame(const uint8_t *in, size_t size, bool save, out *o)
{
    *o = (out){.hash = 0xcbf29ce484222325u};
    static const char header[] = "fray session 3\n";
    if (!(size >= 13 && !memcmp(in, "fray session ", 13)))
        put(o, header, sizeof header - 1, true);
    size_t at = 0;
    while (at < size) {
        const uint8_t *line = in + at;
        const uint8_t *nl = memchr(line, '\n', size - at);
        size_t n = nl ? (size_t)(nl - line) : size - at;
        at += n + (nl != NULL);
        if (starts(line, n, "check")) {
            char check[32];
            snprintf(check, sizeof check, "check %016llx\n", (unsigned long long)o->hash);
            put(o, check, strlen(check), false);
            continue;
        }
        put(o, line, n, true);
        if (nl)
            put(o, "\n", 1, true);
        long long len = block_length(line, n);
        if (len >= 0 && nl) { /* its bytes, as they are, and what follows them */
            size_t take = (size_t)len + 1 <= size - at ? (size_t)len + 1 : size - at;
            put(o, in + at, take, true);
            at += take;
        }
    }
    if (save)
        put(o, "end\n", 4, false);
}

/* --- loading ------------------------------------------------------------------ */

static void load(const char *path, bool journal, uint64_t steps)
{
    fray_options o = {.max_steps = steps, .max_creatures = FUZZ_CREATURES};
    fray_session *s = fray_session_open(&o);
    if (!s)
        return;
    FUZZ_LIMITS(fray_session_set_limit, s);
    fray_session_on_output(s, fuzz_quiet_output, NULL);
    fray_session_on_diagnostic(s, fuzz_quiet_diagnostic, NULL);
    if ((journal ? fray_session_recover(s, path) : fray_session_load(s, path)) == FRAY_OK) {
        fray_session_undo(s, 2);
        fray_session_redo(s, 1);
    }
    fray_session_close(s);
}

static bool write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/fray-fuzz-session.%d", (int)getpid());
    int mode = data[0] % 3;
    const uint8_t *rest = data + 1;
    size_t n = size - 1;
    /* every command of the file replays: they share the input's budget */
    uint64_t steps = fuzz_steps_per_command(rest, n);
    if (mode == 0) {
        if (write_file(path, rest, n)) {
            load(path, false, steps);
            load(path, true, steps);
        }
    } else {
        out o;
        frame(rest, n, mode == 1, &o);
        if (mode == 1 && write_file(path, o.buf, o.n))
            load(path, false, steps);
        if (mode == 2 && write_file(path, o.buf, o.n)) {
            load(path, true, steps);
            size_t cut = (size_t)((double)o.n * (data[0] / 3) / 85);
            if (cut < o.n && write_file(path, o.buf, cut))
                load(path, true, steps);
        }
        free(o.buf);
    }
    unlink(path);
    return 0;
}
