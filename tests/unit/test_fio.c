/* fio: reading refuses what is not a regular file and stops at its limit;
 * the fault hook fails, shortens or kills the operation it is told to. */
#define _POSIX_C_SOURCE 200809L
#include "tests/unit/check_main.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/base/fio.h"
#include "runtime/base/mem.h"
#include "tests/unit/scratch_util.h"

static void make_dir(void)
{
    make_scratch_dir("fio");
}

START_TEST(test_reads_a_regular_file_whole)
{
    make_dir();
    write_text(in_dir("a.rules"), "print 1\nprint 2\n");
    char *text = NULL;
    size_t len = 0;
    ck_assert_int_eq(fio_read_file(in_dir("a.rules"), 1000, &text, &len), 0);
    ck_assert_uint_eq(len, 16);
    ck_assert_str_eq(text, "print 1\nprint 2\n");
    mem_free(text, len + 1);
    /* an empty file is a file */
    write_text(in_dir("empty"), "");
    ck_assert_int_eq(fio_read_file(in_dir("empty"), 1000, &text, &len), 0);
    ck_assert_uint_eq(len, 0);
    ck_assert_str_eq(text, "");
    mem_free(text, 1);
    remove_dir();
}
END_TEST

START_TEST(test_refuses_what_is_not_a_file)
{
    make_dir();
    char *text = NULL;
    size_t len = 0;
    ck_assert_int_eq(fio_read_file(dir, 1000, &text, &len), FIO_ERR_DIRECTORY);
    ck_assert_int_eq(errno, EISDIR);
    ck_assert_int_eq(mkfifo(in_dir("fifo"), 0600), 0);
    /* no writer: a plain open would wait for one for ever */
    ck_assert_int_eq(fio_read_file(in_dir("fifo"), 1000, &text, &len), FIO_ERR_FIFO);
    ck_assert_int_eq(fio_read_file("/dev/zero", 1000, &text, &len), FIO_ERR_DEVICE);
    ck_assert_int_eq(fio_read_file("/dev/null", 1000, &text, &len), FIO_ERR_DEVICE);
    ck_assert_int_eq(fio_read_file(in_dir("missing"), 1000, &text, &len), ENOENT);
    ck_assert_str_eq(fio_error_text(FIO_ERR_DIRECTORY), "is a directory");
    ck_assert_str_eq(fio_error_text(ENOENT), strerror(ENOENT));
    ck_assert_ptr_null(text);
    ck_assert_uint_eq(mem_live_bytes(), 0);
    remove_dir();
}
END_TEST

START_TEST(test_stops_at_its_limit)
{
    make_dir();
    write_text(in_dir("ten"), "0123456789");
    char *text = NULL;
    size_t len = 0;
    ck_assert_int_eq(fio_read_file(in_dir("ten"), 9, &text, &len), FIO_ERR_TOO_BIG);
    ck_assert_int_eq(errno, EFBIG);
    ck_assert_int_eq(fio_read_file(in_dir("ten"), 10, &text, &len), 0);
    ck_assert_uint_eq(len, 10);
    mem_free(text, len + 1);
    ck_assert_uint_eq(mem_live_bytes(), 0);
    remove_dir();
}
END_TEST

START_TEST(test_faults_fail_each_operation_in_turn)
{
    make_dir();
    const char *path = in_dir("out");
    /* counted once without faults: open, write, fsync, close, rename */
    unsigned long before = fio_operations();
    int fd = fio_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert(fio_write(fd, "abcdef", 6));
    ck_assert(fio_fsync(fd));
    ck_assert(fio_close(fd));
    ck_assert(fio_rename(path, in_dir("moved")));
    ck_assert_uint_eq(fio_operations() - before, 5);
    /* each fails in turn, with the errno asked for */
    for (long k = 0; k < 5; k++) {
        fio_fail_after(k, FIO_FAULT_ERROR, ENOSPC);
        bool ok = true;
        fd = fio_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ok &= fd >= 0;
        if (fd >= 0) {
            ok = ok && fio_write(fd, "abcdef", 6) && fio_fsync(fd);
            ok = fio_close(fd) && ok;
        }
        ok = ok && fio_rename(path, in_dir("moved"));
        ck_assert(!ok);
        ck_assert_int_eq(errno, ENOSPC);
    }
    fio_fail_after(-1, FIO_FAULT_ERROR, 0);
    remove_dir();
}
END_TEST

START_TEST(test_a_short_write_writes_half)
{
    make_dir();
    const char *path = in_dir("short");
    int fd = fio_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    fio_fail_after(0, FIO_FAULT_SHORT, EIO);
    ck_assert(!fio_write(fd, "abcdefgh", 8));
    ck_assert_int_eq(errno, EIO);
    ck_assert(fio_close(fd));
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_size, 4);
    remove_dir();
}
END_TEST

START_TEST(test_a_kill_stops_before_the_operation)
{
    make_dir();
    const char *path = in_dir("killed");
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        int fd = fio_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        fio_fail_after(1, FIO_FAULT_KILL, 0);
        fio_write(fd, "first", 5);  /* done */
        fio_write(fd, "second", 6); /* killed before it */
        _exit(0);
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    char *text;
    size_t len;
    ck_assert_int_eq(fio_read_file(path, 100, &text, &len), 0);
    ck_assert_str_eq(text, "first");
    mem_free(text, len + 1);
    remove_dir();
}
END_TEST

static Suite *fio_suite(void)
{
    Suite *s = suite_create("fio");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_reads_a_regular_file_whole);
    tcase_add_test(tc, test_refuses_what_is_not_a_file);
    tcase_add_test(tc, test_stops_at_its_limit);
    tcase_add_test(tc, test_faults_fail_each_operation_in_turn);
    tcase_add_test(tc, test_a_short_write_writes_half);
    tcase_add_test(tc, test_a_kill_stops_before_the_operation);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(fio_suite());
}
