#define _GNU_SOURCE
#include <malloc.h>
#include "darkroom_system.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

int dr_rename_noreplace(const char *from, const char *to) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int dr_inotify_init(void) { return inotify_init1(IN_NONBLOCK | IN_CLOEXEC); }

int dr_inotify_add_watch(int fd, const char *path, uint32_t mask) { return inotify_add_watch(fd, path, mask); }

void dr_inotify_each_event(const char *buffer, size_t length, void *context, dr_inotify_visitor visit) {
    size_t offset = 0;
    while (offset + sizeof(struct inotify_event) <= length) {
        const struct inotify_event *event = (const struct inotify_event *)(buffer + offset);
        visit(context, event->len ? event->name : "", event->mask);
        offset += sizeof(struct inotify_event) + event->len;
    }
}

int dr_notify_send(const char *path, const char *message) {
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof address.sun_path) return -EINVAL;
    memcpy(address.sun_path, path, length);
    if (path[0] == '@') address.sun_path[0] = '\0'; /* abstract: no terminating NUL counted */
    socklen_t address_length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length + (path[0] == '@' ? 0 : 1));

    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    ssize_t sent = sendto(fd, message, strlen(message), MSG_NOSIGNAL, (struct sockaddr *)&address, address_length);
    int result = sent < 0 ? -errno : 0;
    close(fd);
    return result;
}

void dr_release_free_memory(void) {
    malloc_trim(0);
}

void dr_keep_freed_memory(void) {
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
}
