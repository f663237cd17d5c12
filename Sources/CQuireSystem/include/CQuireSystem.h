#ifndef CQUIRE_SYSTEM_H
#define CQUIRE_SYSTEM_H
/* Linux constants and calls that glibc only declares under _GNU_SOURCE, which Swift's
   Glibc module does not define. The .c file defines it and exports them. */
#include <sys/types.h>
/* Extended attributes (lgetxattr, lsetxattr, lremovexattr): the browser's user.xdg.tags. */
#include <sys/xattr.h>
#include <regex.h>

extern const int cquire_F_OFD_SETLK;
extern const int cquire_F_OFD_SETLKW;
extern const int cquire_F_OFD_GETLK;
/* O_PATH: open a file or folder only to name it (follow it through renames via /proc/self/fd). */
extern const int cquire_O_PATH;
/* F_SETLEASE: a write lease is granted only while no other descriptor has the file open. */
extern const int cquire_F_SETLEASE;
extern const unsigned int cquire_RENAME_EXCHANGE;
extern const unsigned int cquire_RENAME_NOREPLACE;

/* statfs(2) of `path`: the file system's magic number (f_type) into *type. Swift's Glibc
   module does not include <sys/vfs.h>. Returns 0, or -1 with errno set. */
int cquire_statfs_type(const char *path, long long *type);

/* renameat2(2): glibc 2.28+ declares it only under _GNU_SOURCE. */
int cquire_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                     unsigned int flags);

/* openat2(2) (Linux 5.6; glibc has no wrapper) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
   RESOLVE_NO_MAGICLINKS: `path` is opened inside `dirfd` only, through no symbolic link at
   all (an escape is EXDEV, a link ELOOP). Returns the descriptor, or -1 with errno set (ENOSYS
   on an older kernel). O_CLOEXEC is added. */
int cquire_open_beneath(int dirfd, const char *path, int flags, unsigned int mode);
/* Raises the soft limit on open descriptors (RLIMIT_NOFILE) to the hard one; returns the
   soft limit now in force, or -1 with errno set. */
long long cquire_raise_descriptor_limit(void);

/* name_to_handle_at(2) for `path` (not following a final symbolic link): writes the handle's
   type and bytes (at most *size; *size is set to the length) and the mount id. */
int cquire_name_to_handle(const char *path, int *handle_type, unsigned char *bytes, unsigned int *size, int *mount_id);
/* open_by_handle_at(2) with O_PATH, then the path through /proc/self/fd into `path_out`
   (at most `capacity` bytes, NUL-terminated). Returns 0, or -1 with errno set. Needs
   CAP_DAC_READ_SEARCH; `mount_fd` is any descriptor on the file system. */
int cquire_path_for_handle(int mount_fd, int handle_type, const unsigned char *bytes, unsigned int size, char *path_out,
                           unsigned int capacity);
/* regcomp(3) and regexec(3) in a UTF-8 LC_CTYPE (so `.` matches a character, as in GNU ed,
   which calls setlocale), whatever the process's locale: the calling thread switches to a
   C.UTF-8 locale object (uselocale) for the call and back. setlocale from a thread while
   others run is a data race that crashed tests; these never touch the global locale. */
int cquire_regcomp_utf8(regex_t *regex, const char *pattern, int flags);
int cquire_regexec_utf8(const regex_t *regex, const char *string, size_t count, regmatch_t *matches, int flags);
/* Interruptible regular-expression matching. glibc's regexec(3) has no cancel hook and can run
   for minutes on a pattern with back references like \(a*\)*\1b; Ctrl-C must stop it, as
   GNU ed's does. Jumping out of regexec with siglongjmp (GNU ed's way) deadlocks a threaded
   process when the signal lands inside malloc, whose arena lock then stays held; so an
   `isolated` match runs on a matcher thread (one, reused) while the caller waits, and an interrupt makes
   the caller stop waiting: the matcher runs on to the end (blocking every signal) and frees
   its own copy of the text, the caller returns REG_NOMATCH with *interrupted set to 1.
   The regex_t is then still in use and must never be freed: the caller leaks it (as GNU ed
   leaks regexec's scratch memory) and compiles the pattern afresh. Without `isolated` this
   is cquire_regexec_utf8 (callers isolate patterns with back references, the ones that can run
   long). Matches run in the UTF-8 locale as above; each matching thread has its own matcher.
   cquire_install_interrupt_handler installs, for `signal`, a handler that calls `raise`
   (the program's interrupt flag) and, for SIGINT, wakes the caller waiting for a match. */
void cquire_install_interrupt_handler(int signal, void (*raise)(void));
/* The write end of a non-blocking pipe the interrupt handler writes a byte to, each signal
   (-1: none). */
void cquire_set_interrupt_wake(int fd);
int cquire_regexec_interruptible(const regex_t *regex, const char *string, size_t count, regmatch_t *matches,
                                 int flags, int isolated, int *interrupted);

/* posix_spawn_file_actions_addclosefrom_np (glibc 2.34) and _addchdir_np (glibc 2.29) on a
   posix_spawn_file_actions_t: the child closes every descriptor from `from` up, and starts in
   `path`. (Untyped, so that this header includes no more of glibc's.) */
int cquire_spawn_close_from(void *actions, int from);
int cquire_spawn_chdir(void *actions, const char *path);
/* SIGINT and SIGQUIT ignored while a command runs, as system(3) does; the returned state
   puts their actions (handler and flags, e.g. no SA_RESTART) back exactly, and is freed. */
void *cquire_ignore_interrupts(void);
void cquire_restore_interrupts(void *saved);

/* Names the calling thread as ps -L and top -H show it (pthread_setname_np on itself; the
   name is cut to the kernel's 15 bytes by the caller). Returns 0 or an errno. */
int cquire_set_current_thread_name(const char *name);

#endif
