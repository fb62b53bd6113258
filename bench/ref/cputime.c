/* bench/ref/cputime.c: runs a command under a CPU-time limit and reports
 * the CPU time it used, to the microsecond (getrusage of the child through
 * wait4). bench/run uses it for dicelab, whose expressions it runs side by
 * side: CPU time, unlike wall time, does not grow when they share the cores;
 * bench/mass uses it for fray's own CPU time and peak memory.
 *
 * Usage: cputime REPORT CPU_SECONDS WALL_SECONDS CMD [ARG]...
 * Writes "STATUS CPU_US WALL_US MAXRSS_KB" on one line to the file REPORT
 * (MAXRSS_KB: the command's peak resident memory), where
 * STATUS is the command's exit status, or "cpu-limit" when it was stopped
 * for using CPU_SECONDS of CPU time, "wall-limit" when it was stopped after
 * WALL_SECONDS of wall time (when the machine is busy), or "signal-N".
 * Exits 0 unless it could not start the command.
 *
 * Build: cc -O2 -o cputime bench/ref/cputime.c
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t child;
static volatile sig_atomic_t wall_expired;

static void on_alarm(int sig)
{
    (void)sig;
    wall_expired = 1;
    if (child > 0)
        kill((pid_t)child, SIGKILL);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: cputime REPORT CPU_SECONDS WALL_SECONDS CMD [ARG]...\n");
        return 2;
    }
    FILE *report = fopen(argv[1], "w");
    if (!report) {
        perror(argv[1]);
        return 2;
    }
    rlim_t seconds = (rlim_t)strtoul(argv[2], NULL, 10);
    unsigned wall_seconds = (unsigned)strtoul(argv[3], NULL, 10);
    double t0 = now_us();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        /* Soft limit: SIGXCPU; hard limit a second later: SIGKILL. */
        struct rlimit lim = {seconds, seconds + 1};
        setrlimit(RLIMIT_CPU, &lim);
        execvp(argv[4], argv + 4);
        perror(argv[4]);
        _exit(127);
    }
    child = pid;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    if (wall_seconds > 0)
        alarm(wall_seconds);
    int status;
    struct rusage ru;
    pid_t got;
    while ((got = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
        ;
    if (got < 0) {
        perror("wait4");
        return 2;
    }
    double wall = now_us() - t0;
    double cpu = (double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec * 1e6 +
                 (double)ru.ru_stime.tv_usec;
    if (wall_expired && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        fprintf(report, "wall-limit");
    else if (WIFEXITED(status))
        fprintf(report, "%d", WEXITSTATUS(status));
    else if (WTERMSIG(status) == SIGXCPU || (WTERMSIG(status) == SIGKILL && cpu >= (double)seconds * 1e6))
        fprintf(report, "cpu-limit");
    else
        fprintf(report, "signal-%d", WTERMSIG(status));
    fprintf(report, " %.0f %.0f %ld\n", cpu, wall, ru.ru_maxrss);
    fclose(report);
    return 0;
}
