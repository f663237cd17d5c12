/* Floor for Quire's lock-handoff benchmark: two processes take turns incrementing a counter
   under a raw lock, with no coordination layer.
   usage: coordination-handoff ofd|flock LOCKFILE COUNTERFILE N
   Each of two children loops: lock; read the counter; stop at N; if it is its turn
   (counter % 2 == its number) increment it; unlock. Prints the seconds taken. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void take(int fd, int ofd) {
  if (ofd) {
    struct flock region = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    while (fcntl(fd, F_OFD_SETLKW, &region) != 0) {}
  } else {
    while (flock(fd, LOCK_EX) != 0) {}
  }
}

static void give(int fd, int ofd) {
  if (ofd) {
    struct flock region = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    fcntl(fd, F_OFD_SETLK, &region);
  } else {
    flock(fd, LOCK_UN);
  }
}

int main(int argc, char **argv) {
  if (argc != 5) { fprintf(stderr, "usage: %s ofd|flock LOCKFILE COUNTERFILE N\n", argv[0]); return 2; }
  int ofd = argv[1][0] == 'o';
  uint64_t n = strtoull(argv[4], 0, 10);
  uint64_t zero = 0;
  int counter = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (counter < 0 || pwrite(counter, &zero, 8, 0) != 8) { perror("counter"); return 1; }
  close(counter);
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int me = 0; me < 2; me++) {
    if (fork() == 0) {
      int lock = open(argv[2], O_RDWR | O_CREAT, 0600);
      int file = open(argv[3], O_RDWR);
      for (;;) {
        take(lock, ofd);
        uint64_t value = 0;
        if (pread(file, &value, 8, 0) != 8) _exit(1);
        if (value >= n) { give(lock, ofd); break; }
        if (value % 2 == (uint64_t)me) { value++; if (pwrite(file, &value, 8, 0) != 8) _exit(1); }
        give(lock, ofd);
      }
      _exit(0);
    }
  }
  int status;
  while (wait(&status) > 0) {}
  clock_gettime(CLOCK_MONOTONIC, &end);
  printf("%.6f\n", (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
  return 0;
}
