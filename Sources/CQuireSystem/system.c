#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include "CQuireSystem.h"

const int cquire_F_OFD_SETLK = F_OFD_SETLK;
const int cquire_F_OFD_SETLKW = F_OFD_SETLKW;
const int cquire_F_OFD_GETLK = F_OFD_GETLK;
const int cquire_O_PATH = O_PATH;
const unsigned int cquire_RENAME_EXCHANGE = RENAME_EXCHANGE;
const unsigned int cquire_RENAME_NOREPLACE = RENAME_NOREPLACE;

int cquire_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                     unsigned int flags) {
  return renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}
