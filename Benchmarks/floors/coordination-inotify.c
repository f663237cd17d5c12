/* Floor for Quire's change-notification latency: a raw inotify reader in another process.
   usage: coordination-inotify FILE N
   The parent appends a byte to FILE N times, 20 ms apart; a child blocked in read(2) on an
   inotify descriptor watching FILE (IN_MODIFY) timestamps each event. Both use
   CLOCK_MONOTONIC; prints one latency in microseconds per line. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s FILE N\n", argv[0]); return 2; }
  int n = atoi(argv[2]);
  int ready[2], times[2];
  if (pipe(ready) || pipe(times)) { perror("pipe"); return 1; }
  if (fork() == 0) {
    int in = inotify_init1(IN_CLOEXEC);
    if (in < 0 || inotify_add_watch(in, argv[1], IN_MODIFY) < 0) { perror("inotify"); _exit(1); }
    char go = 1;
    if (write(ready[1], &go, 1) != 1) _exit(1);
    char buffer[4096];
    for (int i = 0; i < n; i++) {
      if (read(in, buffer, sizeof buffer) <= 0) _exit(1);
      double seen = now_us();
      if (write(times[1], &seen, sizeof seen) != sizeof seen) _exit(1);
    }
    _exit(0);
  }
  char go;
  if (read(ready[0], &go, 1) != 1) return 1;
  int file = open(argv[1], O_WRONLY | O_APPEND);
  for (int i = 0; i < n; i++) {
    usleep(20000);
    double written = now_us();
    if (write(file, "x", 1) != 1) return 1;
    double seen;
    if (read(times[0], &seen, sizeof seen) != sizeof seen) return 1;
    printf("%.1f\n", seen - written);
  }
  int status;
  wait(&status);
  return 0;
}
