// SPDX-License-Identifier: GPL-2.0
/* Landlock and the seccomp filter (see sandbox.h). */
#define _GNU_SOURCE /* O_PATH */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "test_hooks.h"

/*
 * Landlock's interface, declared here: Debian 12's headers (Linux 6.1) stop at ABI 2, and the
 * attribute's later fields are what ABI 4 and 6 add. The kernel takes the struct at any size
 * whose fields beyond the ones it knows are zero, so one layout serves every kernel.
 */
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1

#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_ABI1 ((1ULL << 13) - 1) /* execute .. make_sym */
#define LL_FS_REFER (1ULL << 13)      /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14)   /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15)  /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)   /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

int landlock_abi(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);

	if (test_no_landlock())
		return 0;
	return abi > 0 ? (int)abi : 0;
}

static int add_path_rule(int ruleset, int dir_fd, uint64_t access)
{
	struct ll_path_beneath_attr rule = {.allowed_access = access, .parent_fd = dir_fd};

	if (syscall(__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0))
		return -errno;
	return 0;
}

int landlock_apply(const char *const *read_paths, int write_dir_fd, bool scope_signals)
{
	struct ll_ruleset_attr attr = {.handled_access_fs = LL_FS_ABI1};
	int abi = landlock_abi(), ruleset, ret = 0;

	if (!abi)
		return 0;
	/* Every right the kernel knows is handled, so that whatever is not granted below is
	 * refused, a new kind of right included as far as this kernel's ABI goes. */
	if (abi >= 2)
		attr.handled_access_fs |= LL_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LL_FS_TRUNCATE;
	if (abi >= 5)
		attr.handled_access_fs |= LL_FS_IOCTL_DEV;
	if (abi >= 4) /* no TCP bind or connect: the listening socket is bound already */
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	if (abi >= 6)
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | (scope_signals ? LL_SCOPE_SIGNAL : 0);
	ruleset = syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		return -errno;
	for (; *read_paths && !ret; read_paths++) {
		int fd = open(*read_paths, O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			continue; /* nothing there to read, nothing to grant */
		ret = add_path_rule(ruleset, fd, LL_FS_READ_FILE | LL_FS_READ_DIR);
		close(fd);
	}
	/* --replace's records: a new hidden file, written, renamed over FILE (or removed on failure). */
	if (!ret && write_dir_fd >= 0)
		ret = add_path_rule(ruleset, write_dir_fd,
				    LL_FS_WRITE_FILE | LL_FS_MAKE_REG | LL_FS_REMOVE_FILE);
	if (!ret && syscall(__NR_landlock_restrict_self, ruleset, 0))
		ret = -errno;
	close(ruleset);
	return ret ? ret : abi;
}

/*
 * The seccomp filter is a deny-list. An allow-list would have to name every call that glibc,
 * libbpf and libmicrohttpd (and GnuTLS behind it) make on any path, error paths
 * included, in every version a distribution ships: a call it missed would break a running
 * exporter at the first rare error, which is worse than what it prevents. What the filter
 * must stop is short and stable: running a program, reaching into other processes, new
 * sockets, changing identity or capabilities, mounts and namespaces, modules, kexec, loading
 * BPF, io_uring (whose operations bypass the filter), the file calls Landlock does not
 * cover (modes, owners, extended attributes, links), and the two ioctls that type into a
 * terminal: TIOCSTI (a character pushed into the input of the terminal foliostat was started
 * from, which root's shell then reads as typed; kernels still honour it where
 * dev.tty.legacy_tiocsti is 1, Linux 6.1 always) and TIOCLINUX (its TIOCL_PASTESEL pastes a
 * console's selection as input). Each is refused with EPERM, so a bug that reaches one gets an
 * error, not a crash.
 */
#if defined(__x86_64__)
#define FS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef FS_AUDIT_ARCH
/* clang-format off */
static const int denied_calls[] = {
	__NR_execve, __NR_execveat, __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
	__NR_kcmp, __NR_pidfd_getfd, __NR_socket, __NR_socketpair, __NR_setuid, __NR_setgid,
	__NR_setreuid, __NR_setregid, __NR_setresuid, __NR_setresgid, __NR_setfsuid,
	__NR_setfsgid, __NR_setgroups, __NR_capset, __NR_mount, __NR_umount2, __NR_pivot_root,
	__NR_chroot, __NR_unshare, __NR_setns, __NR_open_tree, __NR_move_mount, __NR_fsopen,
	__NR_fsconfig, __NR_fsmount, __NR_fspick, __NR_mount_setattr, __NR_swapon, __NR_swapoff,
	__NR_reboot, __NR_kexec_load, __NR_kexec_file_load, __NR_init_module,
	__NR_finit_module, __NR_delete_module, __NR_acct, __NR_quotactl, __NR_settimeofday,
	__NR_clock_settime, __NR_clock_adjtime, __NR_adjtimex, __NR_sethostname,
	__NR_setdomainname, __NR_syslog, __NR_vhangup, __NR_keyctl, __NR_add_key,
	__NR_request_key, __NR_open_by_handle_at, __NR_fanotify_init, __NR_userfaultfd,
	__NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register, __NR_personality,
	__NR_fchmod, __NR_fchmodat, __NR_fchown, __NR_fchownat, __NR_setxattr, __NR_lsetxattr,
	__NR_fsetxattr, __NR_removexattr, __NR_lremovexattr, __NR_fremovexattr, __NR_truncate,
	__NR_linkat, __NR_symlinkat, __NR_mknodat,
#ifdef __x86_64__ /* the old calls arm64 never had */
	__NR_chmod, __NR_chown, __NR_lchown, __NR_link, __NR_symlink, __NR_mknod, __NR_iopl,
	__NR_ioperm, __NR_modify_ldt, __NR_uselib,
#endif
	452, /* fchmodat2 (Linux 6.6; numbered alike on both architectures) */
};

/* bpf() commands that make or attach something: the maps and programs are loaded and attached
 * before the filter, and only read (lookups, deletes, object information) after. One attach
 * stays: a link of a program already loaded to a perf event of a CPU brought online (the
 * event opened by the opener process, loader.c), which reaches nothing that event does not. */
static const int denied_bpf_commands[] = {
	BPF_MAP_CREATE, BPF_PROG_LOAD, BPF_OBJ_PIN, BPF_OBJ_GET, BPF_PROG_ATTACH, BPF_PROG_DETACH,
	BPF_PROG_TEST_RUN, BPF_PROG_GET_FD_BY_ID, BPF_MAP_GET_FD_BY_ID, BPF_RAW_TRACEPOINT_OPEN,
	BPF_BTF_LOAD, BPF_BTF_GET_FD_BY_ID, BPF_LINK_UPDATE,
	BPF_LINK_GET_FD_BY_ID, BPF_ENABLE_STATS, BPF_ITER_CREATE, BPF_PROG_BIND_MAP,
	36, /* BPF_TOKEN_CREATE (Linux 6.9) */
};
/* clang-format on */

/* Threads (libraries may start some) are fine; new namespaces are not. */
#define NAMESPACE_FLAGS                                                                            \
	(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | \
	 CLONE_NEWCGROUP)

#define NR_OF(a) (sizeof(a) / sizeof((a)[0]))
#define ARG0_LOW offsetof(struct seccomp_data, args[0]) /* little-endian: the low half first */
/* ioctl's request is an unsigned int to the kernel: its low half alone decides, whatever the
 * high half holds. */
#define ARG1_LOW offsetof(struct seccomp_data, args[1])
#define STMT(code, k) ((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, jt, jf) ((struct sock_filter)BPF_JUMP(code, k, jt, jf))
#define RET_ERRNO(e) STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))

int seccomp_apply(void)
{
	struct sock_filter code[2 * NR_OF(denied_calls) + 2 * NR_OF(denied_bpf_commands) + 32];
	struct sock_fprog prog = {.filter = code};
	size_t n = 0;

	code[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	/* Another architecture's calls (i386's int 0x80 on x86-64) have other numbers: none is
	 * made by foliostat, so any is an attack. */
	code[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, FS_AUDIT_ARCH, 1, 0);
	code[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	code[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	/* x32 calls share the architecture and have the same numbers plus this bit. */
	code[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
	code[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
	for (size_t i = 0; i < NR_OF(denied_calls); i++) {
		code[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, denied_calls[i], 0, 1);
		code[n++] = RET_ERRNO(EPERM);
	}
	/* clone3 takes its flags in memory the filter cannot read: ENOSYS makes glibc use clone,
	 * whose flags it can. */
	code[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1);
	code[n++] = RET_ERRNO(ENOSYS);
	code[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4);
	code[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW);
	code[n++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, NAMESPACE_FLAGS, 0, 1);
	code[n++] = RET_ERRNO(EPERM);
	code[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	code[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 5);
	code[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LOW);
	code[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 1, 0);
	code[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 0, 1);
	code[n++] = RET_ERRNO(EPERM);
	code[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	code[n++] =
	    JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_bpf, 0, 2 * NR_OF(denied_bpf_commands) + 2);
	code[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW);
	for (size_t i = 0; i < NR_OF(denied_bpf_commands); i++) {
		code[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, denied_bpf_commands[i], 0, 1);
		code[n++] = RET_ERRNO(EPERM);
	}
	code[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	code[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)n;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) ? -errno : 0;
}

int seccomp_allow_only(const int *calls, size_t nr)
{
	struct sock_filter code[2 * FS_MAX_ALLOWED_CALLS + 8];
	struct sock_fprog prog = {.filter = code};
	size_t n = 0;

	if (nr > FS_MAX_ALLOWED_CALLS)
		return -E2BIG;
	code[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	code[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, FS_AUDIT_ARCH, 1, 0);
	code[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	/* (x32's numbers carry a high bit: none equals an allowed one.) */
	code[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < nr; i++) {
		code[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, calls[i], 0, 1);
		code[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	code[n++] = RET_ERRNO(EPERM);
	prog.len = (unsigned short)n;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) ? -errno : 0;
}

bool seccomp_available(void)
{
	__u32 action = SECCOMP_RET_ERRNO;

	return syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}
#else
int seccomp_apply(void)
{
	return -EOPNOTSUPP;
}

int seccomp_allow_only(const int *calls, size_t nr)
{
	(void)calls;
	(void)nr;
	return -EOPNOTSUPP;
}

bool seccomp_available(void)
{
	return false;
}
#endif
