#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

int cquire_name_to_handle(const char *path, int *handle_type, unsigned char *bytes, unsigned int *size, int *mount_id) {
  struct file_handle *handle = malloc(sizeof(struct file_handle) + MAX_HANDLE_SZ);
  if (handle == NULL) return -1;
  handle->handle_bytes = MAX_HANDLE_SZ;
  int result = name_to_handle_at(AT_FDCWD, path, handle, mount_id, 0);
  if (result == 0) {
    if (handle->handle_bytes > *size) {
      free(handle);
      errno = EOVERFLOW;
      return -1;
    }
    *handle_type = handle->handle_type;
    memcpy(bytes, handle->f_handle, handle->handle_bytes);
    *size = handle->handle_bytes;
  }
  free(handle);
  return result;
}

int cquire_path_for_handle(int mount_fd, int handle_type, const unsigned char *bytes, unsigned int size, char *path_out,
                           unsigned int capacity) {
  if (size > MAX_HANDLE_SZ || capacity == 0) {
    errno = EINVAL;
    return -1;
  }
  struct file_handle *handle = malloc(sizeof(struct file_handle) + MAX_HANDLE_SZ);
  if (handle == NULL) return -1;
  handle->handle_bytes = size;
  handle->handle_type = handle_type;
  memcpy(handle->f_handle, bytes, size);
  int fd = open_by_handle_at(mount_fd, handle, O_PATH | O_CLOEXEC);
  free(handle);
  if (fd < 0) return -1;
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t length = readlink(link, path_out, capacity - 1);
  int saved = errno;
  close(fd);
  if (length < 0) {
    errno = saved;
    return -1;
  }
  path_out[length] = 0;
  return 0;
}
