#ifndef CQUIRE_SYSTEM_H
#define CQUIRE_SYSTEM_H
/* Linux constants and calls that glibc only declares under _GNU_SOURCE, which Swift's
   Glibc module does not define. The .c file defines it and exports them. */
#include <sys/types.h>

extern const int cquire_F_OFD_SETLK;
extern const int cquire_F_OFD_SETLKW;
extern const int cquire_F_OFD_GETLK;
/* O_PATH: open a file or folder only to name it (follow it through renames via /proc/self/fd). */
extern const int cquire_O_PATH;
extern const unsigned int cquire_RENAME_EXCHANGE;
extern const unsigned int cquire_RENAME_NOREPLACE;

/* renameat2(2): glibc 2.28+ declares it only under _GNU_SOURCE. */
int cquire_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                     unsigned int flags);

#endif
