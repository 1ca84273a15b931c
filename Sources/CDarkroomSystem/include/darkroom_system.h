#ifndef DARKROOM_SYSTEM_H
#define DARKROOM_SYSTEM_H

/* Linux calls that Swift's Glibc module does not export. */

#include <stddef.h>
#include <stdint.h>
#include <sys/xattr.h>
#include <sys/inotify.h>

#ifdef __cplusplus
extern "C" {
#endif

/* renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE): 0, or -1 with errno (EEXIST if `to` exists). */
int dr_rename_noreplace(const char *from, const char *to);

/* inotify_init1(IN_NONBLOCK | IN_CLOEXEC). */
int dr_inotify_init(void);
int dr_inotify_add_watch(int fd, const char *path, uint32_t mask);

/* Calls `visit` with the name (may be empty) and mask of each event in `buffer[0..<length]`. */
typedef void (*dr_inotify_visitor)(void *context, const char *name, uint32_t mask);
void dr_inotify_each_event(const char *buffer, size_t length, void *context, dr_inotify_visitor visit);

/*
 * sd_notify without libsystemd: sends `message` as one datagram to the AF_UNIX socket
 * `path` ($NOTIFY_SOCKET; a leading '@' names an abstract socket). Returns 0, or -errno.
 */
int dr_notify_send(const char *path, const char *message);

/* Returns the free pages of glibc's heap arenas to the kernel (malloc_trim(0)). */
void dr_release_free_memory(void);

/* Makes glibc keep freed memory for reuse: no mmap for large blocks, no automatic trim. */
void dr_keep_freed_memory(void);

#ifdef __cplusplus
}
#endif

#endif
