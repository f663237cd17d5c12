#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <errno.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include "CQuireSystem.h"

const int cquire_F_OFD_SETLK = F_OFD_SETLK;
const int cquire_F_OFD_SETLKW = F_OFD_SETLKW;
const int cquire_F_OFD_GETLK = F_OFD_GETLK;
const int cquire_O_PATH = O_PATH;
const int cquire_F_SETLEASE = F_SETLEASE;
const unsigned int cquire_RENAME_EXCHANGE = RENAME_EXCHANGE;
const unsigned int cquire_RENAME_NOREPLACE = RENAME_NOREPLACE;

int cquire_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                     unsigned int flags) {
  return renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}

int cquire_open_beneath(int dirfd, const char *path, int flags, unsigned int mode) {
#ifdef SYS_openat2
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = (unsigned long long)(flags | O_CLOEXEC);
  how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
  (void)dirfd; (void)path; (void)flags; (void)mode;
  errno = ENOSYS;
  return -1;
#endif
}

long long cquire_raise_descriptor_limit(void) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
  if (limit.rlim_cur < limit.rlim_max) {
    struct rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? (long long)1 << 20 : (long long)limit.rlim_cur;
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

/* Regular expressions in UTF-8, per thread: see the header. newlocale and uselocale are
   thread-safe where setlocale is not (it changes every thread's locale under their feet). */
static locale_t utf8_locale;
static pthread_once_t utf8_locale_once = PTHREAD_ONCE_INIT;

static void cquire_utf8_locale_make(void) {
  static const char *const names[] = {"C.UTF-8", "C.utf8", "en_US.UTF-8"};
  for (size_t index = 0; index < sizeof names / sizeof names[0] && !utf8_locale; index++)
    utf8_locale = newlocale(LC_CTYPE_MASK, names[index], (locale_t)0);
}

static locale_t cquire_utf8_locale(void) {
  pthread_once(&utf8_locale_once, cquire_utf8_locale_make);
  return utf8_locale;
}

int cquire_regcomp_utf8(regex_t *regex, const char *pattern, int flags) {
  locale_t utf8 = cquire_utf8_locale();
  locale_t previous = utf8 ? uselocale(utf8) : (locale_t)0;
  int status = regcomp(regex, pattern, flags);
  if (utf8) uselocale(previous);
  return status;
}

int cquire_regexec_utf8(const regex_t *regex, const char *string, size_t count, regmatch_t *matches, int flags) {
  locale_t utf8 = cquire_utf8_locale();
  locale_t previous = utf8 ? uselocale(utf8) : (locale_t)0;
  int status = regexec(regex, string, count, matches, flags);
  if (utf8) uselocale(previous);
  return status;
}

/* The interruptible regexec: see the header. */
static void (*interrupt_raise)(void);
static int interrupt_signal;
static volatile sig_atomic_t interrupt_pending;
static volatile sig_atomic_t waiting;
static pthread_t waiting_thread;
static __thread int interrupt_unblocked;

static volatile int interrupt_wake_fd = -1;

void cquire_set_interrupt_wake(int fd) { interrupt_wake_fd = fd; }

static void cquire_on_interrupt(int signal) {
  if (interrupt_raise) interrupt_raise();
  /* A byte on the wake pipe lets a task await the signal instead of polling the flag
     (write(2) is async-signal-safe; a full pipe already wakes the reader). */
  if (interrupt_wake_fd >= 0) {
    int saved = errno;
    ssize_t ignored = write(interrupt_wake_fd, "", 1);
    (void)ignored;
    errno = saved;
  }
  if (signal != interrupt_signal) return;
  interrupt_pending = 1;
  /* The kernel may give the signal to any thread: the one waiting for a match must see it
     (its sem_wait then fails with EINTR). */
  if (waiting && !pthread_equal(pthread_self(), waiting_thread)) pthread_kill(waiting_thread, signal);
}

void cquire_install_interrupt_handler(int signal, void (*raise)(void)) {
  struct sigaction action;
  interrupt_raise = raise;
  if (signal == SIGINT) interrupt_signal = signal; /* the one that stops a match */
  action.sa_handler = cquire_on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0; /* no SA_RESTART: a read waiting for a line returns */
  sigaction(signal, &action, NULL);
}

/* One match on a thread of its own. Owned by the matching thread once the waiter abandons it. */
struct cquire_match {
  const regex_t *regex;
  char *text;
  size_t count;
  regmatch_t *matches;
  int flags;
  int status;
  atomic_int tid; /* the matcher's thread id, for lowering its priority once abandoned */
  atomic_int state; /* 0 running, 1 finished (the waiter frees), 2 abandoned (the matcher frees) */
  sem_t done;
};

static void cquire_match_free(struct cquire_match *match) {
  sem_destroy(&match->done);
  free(match->text);
  free(match->matches);
  free(match);
}

/* The thread that runs isolated matches, one after another; made on first use and again after
   an interrupt abandoned it. One per matching thread (tests match on several threads at once). */
struct cquire_matcher {
  sem_t go;
  struct cquire_match *match;
};
static __thread struct cquire_matcher *matcher;

static void *cquire_matcher_loop(void *argument) {
  struct cquire_matcher *self = argument;
  /* Only the waiting thread takes the interrupt signal. */
  sigset_t set;
  sigfillset(&set);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  locale_t utf8 = cquire_utf8_locale();
  if (utf8) uselocale(utf8);
  for (;;) {
    while (sem_wait(&self->go) != 0) {
    }
    struct cquire_match *match = self->match;
    atomic_store(&match->tid, gettid());
    match->status = regexec(match->regex, match->text, match->count, match->matches, match->flags);
    int expected = 0;
    if (atomic_compare_exchange_strong(&match->state, &expected, 1)) {
      sem_post(&match->done);
      continue;
    }
    /* Abandoned: nobody waits for this match, and the caller has made a new matcher. */
    cquire_match_free(match);
    sem_destroy(&self->go);
    free(self);
    return NULL;
  }
}

static struct cquire_matcher *cquire_matcher_make(void) {
  struct cquire_matcher *made = calloc(1, sizeof *made);
  if (!made) return NULL;
  sem_init(&made->go, 0, 0);
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  int created = pthread_create(&thread, &attributes, cquire_matcher_loop, made);
  pthread_attr_destroy(&attributes);
  if (created != 0) {
    sem_destroy(&made->go);
    free(made);
    return NULL;
  }
  return made;
}

int cquire_regexec_interruptible(const regex_t *regex, const char *string, size_t count, regmatch_t *matches,
                                 int flags, int isolated, int *interrupted) {
  *interrupted = 0;
  if (!isolated) return cquire_regexec_utf8(regex, string, count, matches, flags);
  if (!interrupt_unblocked && interrupt_signal != 0) {
    /* Worker threads (Dispatch, Foundation's Thread) start with signals blocked: the waiting
       thread must be able to take the interrupt. Once per thread. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, interrupt_signal);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    interrupt_unblocked = 1;
  }
  struct cquire_match *match = calloc(1, sizeof *match);
  if (!match) return REG_ESPACE;
  size_t length = strlen(string);
  match->text = malloc(length + 1);
  match->matches = calloc(count ? count : 1, sizeof(regmatch_t));
  if (!match->text || !match->matches) {
    free(match->text);
    free(match->matches);
    free(match);
    return REG_ESPACE;
  }
  memcpy(match->text, string, length + 1);
  match->regex = regex;
  match->count = count;
  match->flags = flags;
  atomic_init(&match->state, 0);
  sem_init(&match->done, 0, 0);
  interrupt_pending = 0;
  if (!matcher) matcher = cquire_matcher_make();
  if (!matcher) {
    cquire_match_free(match);
    return cquire_regexec_utf8(regex, string, count, matches, flags);
  }
  matcher->match = match;
  sem_post(&matcher->go);
  waiting_thread = pthread_self();
  waiting = 1;
  int abandoned = 0;
  int tid = 0;
  while (sem_wait(&match->done) != 0) {
    if (errno == EINTR && interrupt_pending) {
      /* Read before giving the match away: once abandoned, the matcher may free it any time. */
      tid = atomic_load(&match->tid);
      int expected = 0;
      if (atomic_compare_exchange_strong(&match->state, &expected, 2)) {
        abandoned = 1;
        break;
      }
    }
  }
  waiting = 0;
  if (abandoned) {
    /* The matcher runs on until regexec returns, then frees the match and ends; it gets the
       lowest priority meanwhile. The regex_t stays in its use: the caller must never free it.
       The next isolated match makes a new matcher. */
    matcher = NULL;
    if (tid > 0) setpriority(PRIO_PROCESS, (id_t)tid, 19);
    *interrupted = 1;
    return REG_NOMATCH;
  }
  memcpy(matches, match->matches, count * sizeof(regmatch_t));
  int status = match->status;
  cquire_match_free(match);
  return status;
}

/* Spawning: see the header. */
#include <spawn.h>

int cquire_spawn_close_from(void *actions, int from) {
  return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, from);
}

int cquire_spawn_chdir(void *actions, const char *path) {
  return posix_spawn_file_actions_addchdir_np((posix_spawn_file_actions_t *)actions, path);
}

struct cquire_saved_interrupts {
  struct sigaction interrupt;
  struct sigaction quit;
};

void *cquire_ignore_interrupts(void) {
  struct cquire_saved_interrupts *saved = calloc(1, sizeof *saved);
  struct sigaction ignore;
  if (!saved) return NULL;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &saved->interrupt);
  sigaction(SIGQUIT, &ignore, &saved->quit);
  return saved;
}

void cquire_restore_interrupts(void *state) {
  struct cquire_saved_interrupts *saved = state;
  if (!saved) return;
  sigaction(SIGINT, &saved->interrupt, NULL);
  sigaction(SIGQUIT, &saved->quit, NULL);
  free(saved);
}

int cquire_statfs_type(const char *path, long long *type) {
  struct statfs info;
  if (statfs(path, &info) != 0) return -1;
  *type = (long long)info.f_type;
  return 0;
}

int cquire_set_current_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }
