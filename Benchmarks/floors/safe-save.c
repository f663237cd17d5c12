/* Floors for bench-documents, compiled at run time with `cc -O2`.
 *
 *   safe-save PATH SIZE ITERATIONS   plain write + fsync + rename of SIZE bytes over PATH
 *                                    (no folder fsync, no mode/owner keeping, no checks)
 *   safe-save-dirsync PATH SIZE N    the same, then fsync of the folder (what durability of
 *                                    the rename needs, and what Quire's save does)
 *   read PATH ITERATIONS             read the whole file into memory
 *
 * Prints the median seconds of one iteration. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  double times[1000];
  int dirsync = strcmp(argv[1], "safe-save-dirsync") == 0;
  if ((strcmp(argv[1], "safe-save") == 0 || dirsync) && argc == 5) {
    const char *path = argv[2];
    size_t size = strtoull(argv[3], NULL, 10);
    int iterations = atoi(argv[4]);
    char *buffer = malloc(size);
    for (size_t i = 0; i < size; i++) buffer[i] = (i % 64 == 63) ? '\n' : 'a' + i % 26;
    char temp[4096];
    snprintf(temp, sizeof temp, "%s.floor-tmp", path);
    for (int i = 0; i < iterations && i < 1000; i++) {
      double start = now();
      int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd < 0) return 1;
      size_t done = 0;
      while (done < size) {
        ssize_t n = write(fd, buffer + done, size - done);
        if (n <= 0) return 1;
        done += n;
      }
      if (fsync(fd) != 0) return 1;
      close(fd);
      if (rename(temp, path) != 0) return 1;
      if (dirsync) {
        char folder[4096];
        snprintf(folder, sizeof folder, "%s", path);
        char *slash = strrchr(folder, '/');
        if (slash) *slash = 0;
        int dir = open(slash ? folder : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0 || fsync(dir) != 0) return 1;
        close(dir);
      }
      times[i] = now() - start;
    }
    qsort(times, iterations, sizeof(double), cmp);
    printf("%.9f\n", times[iterations / 2]);
    return 0;
  }
  if (strcmp(argv[1], "read") == 0 && argc == 4) {
    int iterations = atoi(argv[3]);
    for (int i = 0; i < iterations && i < 1000; i++) {
      double start = now();
      int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
      struct stat info;
      fstat(fd, &info);
      char *buffer = malloc(info.st_size);
      size_t done = 0;
      while (done < (size_t)info.st_size) {
        ssize_t n = read(fd, buffer + done, info.st_size - done);
        if (n <= 0) break;
        done += n;
      }
      close(fd);
      times[i] = now() - start;
      free(buffer);
    }
    qsort(times, iterations, sizeof(double), cmp);
    printf("%.9f\n", times[iterations / 2]);
    return 0;
  }
  return 2;
}
