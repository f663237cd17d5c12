#ifndef CQUIRE_SYSTEM_H
#define CQUIRE_SYSTEM_H
/* Linux constants and calls that glibc only declares under _GNU_SOURCE, which Swift's
   Glibc module does not define. The .c file defines it and exports them. */
#include <sys/types.h>
/* Extended attributes (lgetxattr, lsetxattr, lremovexattr): the browser's user.xdg.tags. */
#include <sys/xattr.h>

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

/* name_to_handle_at(2) for `path` (not following a final symbolic link): writes the handle's
   type and bytes (at most *size; *size is set to the length) and the mount id. */
int cquire_name_to_handle(const char *path, int *handle_type, unsigned char *bytes, unsigned int *size, int *mount_id);
/* open_by_handle_at(2) with O_PATH, then the path through /proc/self/fd into `path_out`
   (at most `capacity` bytes, NUL-terminated). Returns 0, or -1 with errno set. Needs
   CAP_DAC_READ_SEARCH; `mount_fd` is any descriptor on the file system. */
int cquire_path_for_handle(int mount_fd, int handle_type, const unsigned char *bytes, unsigned int size, char *path_out,
                           unsigned int capacity);

#endif
