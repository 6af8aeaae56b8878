/* SPDX-License-Identifier: BSD-3-Clause */
/* op_kind.h: what an RPC operation does, whatever its program.
 *
 * Each program's dissector declares, per operation (for NFSv2/v3, MOUNT,
 * NLM, NSM, portmap/rpcbind and NFSACL the operations are the procedures),
 * one kind and a set of flags. The shared layers (stats, findings, records,
 * the reports and the view) read these, never program or procedure
 * numbers, so a new program is one file in dissectors/.
 *
 * The file-service kinds come first, in the order RFC 1813 lists its
 * procedures, because the reports list per-kind counts in this order. */
#ifndef NFSSCOPE_OP_KIND_H
#define NFSSCOPE_OP_KIND_H

#include <stdint.h>

enum op_kind {
    /* file service (RFC 1813 §3.3, RFC 1094 §2.2, RFC 7530 §16) */
    OPK_NULL,        /* the RPC ping (procedure 0 of every program) */
    OPK_GETATTR,     /* read a file's attributes */
    OPK_SETATTR,     /* change them */
    OPK_LOOKUP,      /* a name in a directory to a handle */
    OPK_ACCESS,      /* check access rights */
    OPK_READLINK,    /* read a symbolic link */
    OPK_READ,        /* read data */
    OPK_WRITE,       /* write data */
    OPK_CREATE,      /* create a regular file */
    OPK_MKDIR,       /* create a directory */
    OPK_SYMLINK,     /* create a symbolic link */
    OPK_MKNOD,       /* create a special file */
    OPK_REMOVE,      /* remove a file */
    OPK_RMDIR,       /* remove a directory */
    OPK_RENAME,      /* rename */
    OPK_LINK,        /* create a hard link */
    OPK_READDIR,     /* list a directory */
    OPK_READDIRPLUS, /* list it with attributes and handles */
    OPK_FSSTAT,      /* file system usage (NFSv2 STATFS) */
    OPK_FSINFO,      /* file system limits */
    OPK_PATHCONF,    /* POSIX pathconf values */
    OPK_COMMIT,      /* flush written data to stable storage */
    /* the rest: open state, ACLs, locks, mounts, port mapping, status monitoring */
    OPK_OTHER,       /* none of these (NFSv2 ROOT, WRITECACHE, RPCBIND GETTIME ...) */
    OPK_OPEN,        /* open a file (NFSv4 state) */
    OPK_CLOSE,       /* close it */
    OPK_GETFH,       /* return the current handle (NFSv4 GETFH) */
    OPK_PUTFH,       /* set the current handle (NFSv4 PUTFH, PUTROOTFH, RESTOREFH ...) */
    OPK_SESSION,     /* client and session state (NFSv4 SETCLIENTID, SEQUENCE ...) */
    OPK_DELEGATION,  /* return or recall a delegation */
    OPK_GETACL,      /* read an ACL */
    OPK_SETACL,      /* change it */
    OPK_LOCK,        /* take a byte-range lock */
    OPK_UNLOCK,      /* release it */
    OPK_LOCK_TEST,   /* test whether it could be taken */
    OPK_LOCK_CANCEL, /* cancel a blocked lock request */
    OPK_LOCK_GRANTED,/* the server grants a blocked lock (callback) */
    OPK_LOCK_RESULT, /* the result of an asynchronous lock message (NLM *_RES) */
    OPK_SHARE,       /* take a DOS share reservation */
    OPK_UNSHARE,     /* release it */
    OPK_FREE_ALL,    /* release every lock of a client */
    OPK_MOUNT,       /* an export's root handle (MOUNT MNT) */
    OPK_UNMOUNT,     /* the client is done with an export (UMNT, UMNTALL) */
    OPK_MOUNT_LIST,  /* list the mounts (MOUNT DUMP) */
    OPK_EXPORTS,     /* list the exports */
    OPK_PORT_SET,    /* register a program's address (portmap SET) */
    OPK_PORT_UNSET,  /* remove it */
    OPK_PORT_LOOKUP, /* look a program's address up (GETPORT, GETADDR ...) */
    OPK_PORT_LIST,   /* list every registration (DUMP) */
    OPK_CALL_INDIRECT, /* call a program through the port mapper (CALLIT ...) */
    OPK_ADDR_CONVERT,  /* convert between address forms (UADDR2TADDR ...) */
    OPK_STATUS,      /* a service's own status (NSM STAT, RPCBIND GETSTAT) */
    OPK_MONITOR,     /* start monitoring a host (NSM MON) */
    OPK_UNMONITOR,   /* stop (UNMON, UNMON_ALL) */
    OPK_NOTIFY,      /* a host rebooted (NSM NOTIFY, SIMU_CRASH) */
    OPK__COUNT
};

/* The kinds the findings' model of the client counts, one slot each. */
#define OPK_FILE_COUNT (OPK_COMMIT + 1)

/* Operation flags (struct rpc_op.flags). */
enum {
    OPF_FH = 1u << 0,       /* acts on a file handle the call names */
    OPF_MOD_DATA = 1u << 1, /* changes a file's data */
    OPF_MOD_META = 1u << 2, /* changes attributes, the name space, or the space used */
    OPF_RANGE = 1u << 3,    /* the event carries the call's byte range (offset) */
    OPF_MSG = 1u << 4,      /* an asynchronous message: no result in the reply (NLM *_MSG) */
    OPF_CALLBACK = 1u << 5, /* sent by the server to the client (NLM GRANTED) */
};

/* Lower-case name of a kind ("getattr", "lock_granted"); "other" out of range. */
const char *op_kind_name(unsigned kind);

#endif
