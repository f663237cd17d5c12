/* The floor for bench-mount-polling: one look at every entry of a folder (readdir, then one
   lstat each), `rounds` times, as the least a poller of the folder must do per interval.
   Prints the CPU seconds (user + system, getrusage) per round. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

static double cpu(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: FOLDER ROUNDS\n"); return 2; }
  int rounds = atoi(argv[2]);
  char path[4096];
  long seen = 0;
  double start = cpu();
  for (int round = 0; round < rounds; round++) {
    DIR *folder = opendir(argv[1]);
    if (!folder) { perror(argv[1]); return 1; }
    struct dirent *entry;
    while ((entry = readdir(folder))) {
      if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, "..")) continue;
      snprintf(path, sizeof path, "%s/%s", argv[1], entry->d_name);
      struct stat info;
      if (lstat(path, &info) == 0) seen += info.st_size >= 0;
    }
    closedir(folder);
  }
  printf("%.9f %ld\n", (cpu() - start) / rounds, seen / rounds);
  return 0;
}
