// The sandbox's monitor (tools/grading/sandbox.py compiles it as it starts): the first process
// bubblewrap starts inside a sandbox. It runs the sandboxed command as its child, then tells the
// grader, on a pipe of its own that the command never holds, how the command ended and how many
// processes it left running, and hands back one file of the sandbox (a test's own report), cut
// to a size:
//   status N\n  left N\n  [fetched LENGTH\n BYTES]
//
// usage: monitor REPORT_FD UID FETCH CAP -- COMMAND...
//   REPORT_FD the pipe to the grader; UID the user to become first ('-': stay), where the grader
//   runs as root and the sandbox has no user namespace; FETCH a file to hand back ('-': none);
//   CAP at most that many of its bytes.
//
// It makes itself non-dumpable before it starts the command, so that the command's processes,
// which run as the same user, cannot open its /proc files (and through them its pipe to the
// grader); the sandbox's seccomp filter keeps them from tracing it. LD_PRELOAD, where the grader
// sets it (the launch counter), is for the command alone (TUT_PRELOAD).
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(int fd, const char* text, size_t length) {
  while (length > 0) {
    const ssize_t done = write(fd, text, length);
    if (done <= 0) return;
    text += done;
    length -= (size_t)done;
  }
}

// Processes of the sandbox other than its init (pid 1) and this monitor.
static int others_running(void) {
  DIR* proc = opendir("/proc");
  int count = 0;
  if (!proc) return 0;
  for (struct dirent* e; (e = readdir(proc));) {
    if (!isdigit((unsigned char)e->d_name[0])) continue;
    const long pid = strtol(e->d_name, NULL, 10);
    if (pid != 1 && pid != (long)getpid()) ++count;
  }
  closedir(proc);
  return count;
}

// FETCH's first CAP bytes, where it is a regular file (never a FIFO, a device or a link).
static void hand_back(int report, const char* fetch, size_t cap) {
  char* data = malloc(cap ? cap : 1);
  size_t got = 0;
  const int fd = open(fetch, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  struct stat st;
  if (data && fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
    for (ssize_t n; got < cap && (n = read(fd, data + got, cap - got)) > 0;) got += (size_t)n;
  if (fd >= 0) close(fd);
  char line[64];
  say(report, line, (size_t)snprintf(line, sizeof line, "fetched %zu\n", got));
  if (data) say(report, data, got);
  free(data);
}

int main(int argc, char** argv) {
  if (argc < 7 || strcmp(argv[5], "--") != 0) {
    fprintf(stderr, "usage: monitor REPORT_FD UID FETCH CAP -- COMMAND...\n");
    return 2;
  }
  const int report = atoi(argv[1]);
  if (strcmp(argv[2], "-") != 0) {
    const uid_t uid = (uid_t)atoi(argv[2]);
    if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0) {
      perror("tut-sandbox: cannot become the sandbox's user");
      return 126;
    }
  }
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  const pid_t child = fork();
  if (child == 0) {
    close(report);
    const char* preload = getenv("TUT_PRELOAD");
    if (preload && *preload) setenv("LD_PRELOAD", preload, 1);
    unsetenv("TUT_PRELOAD");
    execvp(argv[6], argv + 6);
    fprintf(stderr, "tut-sandbox: cannot run %s\n", argv[6]);
    _exit(127);
  }
  int status = 0, code = 127;
  if (child > 0 && waitpid(child, &status, 0) == child)
    code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  char line[64];
  say(report, line, (size_t)snprintf(line, sizeof line, "status %d\nleft %d\n", code, others_running()));
  if (strcmp(argv[3], "-") != 0) hand_back(report, argv[3], (size_t)strtoull(argv[4], NULL, 10));
  close(report);
  return code;
}
