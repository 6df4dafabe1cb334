/*
 * selfcpu — runs a command and prints the CPU it used itself, apart from
 * the children it started and waited for (bench/growth.sh).
 *
 *   selfcpu OUT -- COMMAND [ARG...]
 *
 * /usr/bin/time reports the rusage wait4 gives, which adds every child the
 * command reaped (whittle's builds and test runs: the judge). Here the
 * command is left a zombie (waitid with WNOWAIT) and its own utime and
 * stime, every thread's, are read from /proc/PID/stat (fields 14 and 15)
 * before it is reaped; the reaped children are fields 16 and 17. OUT gets
 * one line: "self_user_s self_sys_s children_s maxrss_kb exit_status".
 * Exits with the command's status.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: selfcpu OUT -- COMMAND [ARG...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("selfcpu: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[3], argv + 3);
        fprintf(stderr, "selfcpu: cannot run '%s'\n", argv[3]);
        _exit(127);
    }
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0) {
        perror("selfcpu: waitid");
        return 2;
    }
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    /* Fields after the command name, which ends at the last ')'. */
    char *p = strrchr(buf, ')');
    unsigned long long v[20] = {0};
    int k = 0;
    for (char *t = p ? strtok(p + 1, " ") : NULL; t && k < 20; t = strtok(NULL, " "))
        v[k++] = strtoull(t, NULL, 10);
    /* v[0] is field 3 (state): utime is field 14 = v[11], stime v[12],
     * cutime v[13], cstime v[14]. */
    struct rusage ru;
    int st = 0;
    if (wait4(pid, &st, 0, &ru) < 0) {
        perror("selfcpu: wait4");
        return 2;
    }
    double hz = (double)sysconf(_SC_CLK_TCK);
    FILE *o = fopen(argv[1], "w");
    if (!o || k < 15) {
        fprintf(stderr, "selfcpu: cannot read %s or write '%s'\n", path, argv[1]);
        return 2;
    }
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    fprintf(o, "%.2f %.2f %.2f %ld %d\n", (double)v[11] / hz, (double)v[12] / hz,
            (double)(v[13] + v[14]) / hz, ru.ru_maxrss, code);
    fclose(o);
    return code;
}
