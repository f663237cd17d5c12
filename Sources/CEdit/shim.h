#include <stdio.h>
#include <histedit.h>

/* el_set, el_get and history are variadic: Swift cannot call them, so each use gets a
   fixed-signature wrapper here. */
static inline int cedit_set_prompt(EditLine *el, char *(*prompt)(EditLine *)) {
  return el_set(el, EL_PROMPT, prompt);
}
static inline int cedit_set_editor(EditLine *el, const char *mode) {
  return el_set(el, EL_EDITOR, mode);
}
static inline int cedit_set_history(EditLine *el, History *h) {
  return el_set(el, EL_HIST, history, h);
}
static inline int cedit_set_signal(EditLine *el, int on) {
  return el_set(el, EL_SIGNAL, on);
}
static inline int cedit_set_clientdata(EditLine *el, void *data) {
  return el_set(el, EL_CLIENTDATA, data);
}
static inline void *cedit_get_clientdata(EditLine *el) {
  void *data = NULL;
  el_get(el, EL_CLIENTDATA, &data);
  return data;
}
static inline int cedit_add_function(EditLine *el, const char *name, const char *help,
                                     unsigned char (*fn)(EditLine *, int)) {
  return el_set(el, EL_ADDFN, name, help, fn);
}
static inline int cedit_bind(EditLine *el, const char *key, const char *fn) {
  return el_set(el, EL_BIND, key, fn, NULL);
}
static inline int cedit_history_set_size(History *h, HistEvent *ev, int size) {
  return history(h, ev, H_SETSIZE, size);
}
static inline int cedit_history_enter(History *h, HistEvent *ev, const char *line) {
  return history(h, ev, H_ENTER, line);
}
static inline int cedit_history_load(History *h, HistEvent *ev, const char *path) {
  return history(h, ev, H_LOAD, path);
}
static inline int cedit_history_save(History *h, HistEvent *ev, const char *path) {
  return history(h, ev, H_SAVE, path);
}
static inline int cedit_history_count(History *h, HistEvent *ev) {
  return history(h, ev, H_GETSIZE);
}
/* History saved to a stream the caller opened (O_NOFOLLOW, mode 0600) rather than a path. */
static inline int cedit_history_save_fp(History *h, HistEvent *ev, FILE *fp) {
  return history(h, ev, H_SAVE_FP, fp);
}

/* A read function of our own, so that Ctrl-C (read(2) failing with EINTR) ends el_gets
   instead of being retried by libedit. */
static inline int cedit_set_getcfn(EditLine *el, int (*fn)(EditLine *, wchar_t *)) {
  return el_set(el, EL_GETCFN, fn);
}
