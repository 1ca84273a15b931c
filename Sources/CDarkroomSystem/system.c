#define _GNU_SOURCE
#include "darkroom_system.h"

#include <fcntl.h>
#include <stdio.h>
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
