"""The system calls a sandboxed process may not make, as the classic BPF program that bubblewrap
loads (--seccomp FD) before it starts the sandbox's command:
- reading or writing another process's memory or file descriptors: ptrace, process_vm_readv and
  _writev, pidfd_getfd, kcmp; and perf_event_open. A student's process could otherwise trace the
  sandbox's own processes (its monitor, whose report the grader reads) or another of its kind;
- a new user namespace (unshare or clone with CLONE_NEWUSER; clone3, whose flags a filter cannot
  read, answers ENOSYS, and the C library falls back to clone): inside one, a process would
  hold capabilities again;
- every call of another ABI (32-bit x86 or ARM, x32), whose numbers this filter does not know.
Refused calls fail with EPERM; everything else is allowed."""
import platform
import struct

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
NR, ARCH, ARG0 = 0, 4, 16
LD_ABS, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
ALLOW, ERRNO = 0x7FFF0000, 0x00050000
EPERM, ENOSYS = 1, 38
CLONE_NEWUSER = 0x10000000
X32_BIT = 0x40000000

# machine -> (AUDIT_ARCH_*, {call: number}, whether x32 numbers exist)
ABIS = {
    "x86_64": (0xC000003E, {"ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
                            "pidfd_getfd": 438, "perf_event_open": 298, "unshare": 272, "clone": 56,
                            "clone3": 435}, True),
    "aarch64": (0xC00000B7, {"ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272,
                             "pidfd_getfd": 438, "perf_event_open": 241, "unshare": 97, "clone": 220,
                             "clone3": 435}, False),
}
REFUSED = ("ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp", "perf_event_open")


def supported() -> bool:
    return platform.machine() in ABIS


def program() -> bytes:
    """The filter for this machine's ABI, as bubblewrap reads it (struct sock_filter[])."""
    arch, calls, x32 = ABIS[platform.machine()]
    code = []  # (opcode, jump if true: label or 0, jump if false: label or 0, k)

    def op(opcode, k, true=0, false=0):
        code.append((opcode, true, false, k))

    op(LD_ABS, ARCH)
    op(JEQ, arch, 0, "deny")
    op(LD_ABS, NR)
    if x32:
        op(JGE, X32_BIT, "deny", 0)
    for name in REFUSED:
        op(JEQ, calls[name], "deny", 0)
    op(JEQ, calls["clone3"], "enosys", 0)
    for name in ("clone", "unshare"):  # their first argument is the flags
        op(JEQ, calls[name], 0, f"after_{name}")
        op(LD_ABS, ARG0)
        op(JSET, CLONE_NEWUSER, "deny", "allow")
        code.append(f"after_{name}")
    code.append("allow")
    op(RET, ALLOW)
    code.append("deny")
    op(RET, ERRNO | EPERM)
    code.append("enosys")
    op(RET, ERRNO | ENOSYS)

    labels, at = {}, 0
    for item in code:
        if isinstance(item, str):
            labels[item] = at
        else:
            at += 1
    out, at = b"", 0
    for item in code:
        if isinstance(item, str):
            continue
        opcode, true, false, k = item
        jump = [labels[j] - at - 1 if isinstance(j, str) else j for j in (true, false)]
        assert all(0 <= j < 256 for j in jump), "a jump out of the filter's reach"
        out += struct.pack("=HBBI", opcode, jump[0], jump[1], k)
        at += 1
    return out
