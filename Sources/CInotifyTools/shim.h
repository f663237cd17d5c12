#include <stdio.h>
#include <sys/inotify.h>
#include <inotifytools/inotifytools.h>

/* inotifytools_remove_watch_by_wd without its message. When the kernel has already dropped the
   watch (its file was deleted or replaced and the IN_IGNORED event is still on its way, a race
   no caller can close), libinotifytools prints "Failed to remove watch on …" to the process's
   standard error, where it would reach the user and break scripts. The failure is still in the
   result (0); only the message goes to /dev/null. libinotifytools reads the `stderr` pointer at
   the call; Quire writes its own messages to descriptor 2, not through `stderr`. Call it from
   one thread only (the inotify owner's). */
static inline int cquire_inotifytools_remove_watch_quietly(int wd) {
  static FILE *discard;
  if (!discard) discard = fopen("/dev/null", "we");
  if (!discard) return inotifytools_remove_watch_by_wd(wd);
  FILE *saved = stderr;
  stderr = discard;
  int removed = inotifytools_remove_watch_by_wd(wd);
  stderr = saved;
  return removed;
}
