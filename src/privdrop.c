/* SPDX-License-Identifier: BSD-3-Clause */
/* privdrop: setuid away from root and shed capabilities after the capture is
 * open. Capabilities with the raw capget/capset system calls (capabilities(7))
 * so that libcap is not needed. */
#include "privdrop.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int
caps_get(struct __user_cap_data_struct d[2])
{
    struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };

    memset(d, 0, 2 * sizeof d[0]);
    return (int)syscall(SYS_capget, &h, d);
}

/* Empty the effective, permitted and inheritable sets and the ambient set
 * (ambient: Linux 4.3; EINVAL on older kernels means there is none). */
static int
caps_clear(void)
{
    struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    struct __user_cap_data_struct d[2];

    memset(d, 0, sizeof d);
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        return -1;
    return (int)syscall(SYS_capset, &h, d);
}

static bool
caps_none(void)
{
    struct __user_cap_data_struct d[2];

    if (caps_get(d) != 0)
        return false;
    return !(d[0].effective | d[1].effective | d[0].permitted | d[1].permitted |
             d[0].inheritable | d[1].inheritable);
}

/* Remove every capability from the bounding set (needs CAP_SETPCAP, which
 * root has outside restrictive containers; where it is missing the setuid
 * below still clears the permitted set, so this is defence in depth). */
static void
bounding_set_empty(void)
{
    int cap;

    for (cap = 0; cap < 64; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL)
            break; /* past the kernel's last capability */
}

static int
shed_capabilities(char *err, size_t errlen)
{
    if (caps_clear() != 0 || !caps_none()) {
        snprintf(err, errlen, "cannot give up capabilities: %s", strerror(errno ? errno : EPERM));
        return 1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(err, errlen, "cannot set no_new_privs: %s", strerror(errno));
        return 1;
    }
    return 0;
}

int
privdrop_after_open(bool live, const char *user, char *err, size_t errlen)
{
    const char *name = user;
    struct passwd *pw;

    if (!name) {
        if (!live)
            return 0;
        if (geteuid() != 0)
            return shed_capabilities(err, errlen); /* e.g. setcap cap_net_raw+ep */
        name = "nobody";
    }
    errno = 0;
    pw = getpwnam(name);
    if (!pw) {
        if (user)
            snprintf(err, errlen, "-Z: no user \"%s\"", name);
        else
            snprintf(err, errlen, "cannot give up root: no user \"nobody\" (name one with -Z USER,"
                                  " or keep root with -Z root)");
        return user ? 2 : 1;
    }
    if (pw->pw_uid == 0)
        return 0; /* -Z root: asked to keep the privileges */
    if (geteuid() != 0) {
        if (pw->pw_uid == geteuid())
            return live ? shed_capabilities(err, errlen) : 0;
        snprintf(err, errlen, "-Z %s: only root can change to another user", name);
        return 1;
    }
    bounding_set_empty();
    if (initgroups(pw->pw_name, pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 ||
        setuid(pw->pw_uid) != 0) {
        snprintf(err, errlen, "cannot change to user %s: %s", name, strerror(errno));
        return 1;
    }
    if (setuid(0) == 0 || geteuid() == 0) {
        snprintf(err, errlen, "cannot change to user %s: root could be regained", name);
        return 1;
    }
    return shed_capabilities(err, errlen);
}
