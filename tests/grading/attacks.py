"""The second round of attacks on the grader (make_submissions.py holds the first), one per way a
submission once got through: each is a stage file whose result is right only if its attack
works, so that a blocked attack leaves a failing stage (or the status the grader gives what it
sees). Chapter 02's are nat_triple_loop.cpp (with gpu2 where a second file is needed); chapter
03's, graded with the solutions of every chapter, are cpu_jacobi.cpp.

TARGETS names what they aim at: 'build' (the grading build), 'root' (the checkout),
'checkout_build' (a build folder the test plants in the checkout, as the quick start's build/),
'socket' (a socket file the test listens on), 'home' (the instructor's home folder).
An expected status 'fail-if-memory-limited:OTHER' is fail where the report says the sandbox's
memory is limited as a whole (a cgroup), else OTHER; 'fail-if-processes-limited:OTHER' the same
for its processes (a cgroup, or as root a user of its own)."""
import pathlib
import shutil
import tarfile

MATMUL, POISSON = "02-matmul", "03-poisson"
MARKER = "tut-classmate-" + "marker-7f3a"  # written apart, so that no file holds it whole but the classmate's
WEIRD_NAME = "escapes\x1b[2J\x1b]0;owned\x07\rname\n"  # terminal escapes, a bell, a carriage return, a new line

# A nat_triple_loop.cpp whose product is right only if attack_worked() says so: blocked, it drops a term.
NAT = '''#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "matmul.h"
{prelude}
namespace {{

// {what}
bool attack_worked() {{
{body}
}}

}}  // namespace

extern "C" void matmult_nat(int m, int n, int k, double* A, double* B, double* C) {{
  static const bool worked = attack_worked();  // tried once, at the first call
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {{
      double sum = 0;
      for (int l = 0; l < (worked ? k : k - 1); ++l) sum += A[size_t(i) * k + l] * B[size_t(l) * n + j];
      C[size_t(i) * n + j] = sum;
    }}
}}

const MatmulCode matmul_nat{{matmult_nat}};
{extra}'''

ROOT = pathlib.Path(__file__).resolve().parents[2]
RIGHT = (ROOT / "solutions" / MATMUL / "nat_triple_loop.cpp").read_text()  # the product, right


def nat(what, body, extra="", prelude=""):
    return NAT.format(what=what, body=body, extra=extra, prelude=prelude)


def matmul(targets: dict) -> dict:
    """submission -> ({file: text}, {stage: (status, piece of its message)}) for chapter 02."""
    build, root = targets["build"], targets["root"]
    return {
        # the grader's own scratch layout once took an archive's name as a folder name
        "reference": ({"nat_triple_loop.cpp": nat("A term short; the archive also holds a fake judge.", "  return false;")},
                      {"nat": ("fail", "differs from the reference")}),
        "embeds_build_a_classmate": ({"nat_triple_loop.cpp": RIGHT + f'\nextern "C" const char classmate_marker[] = "{MARKER}";\n'},
                                     {"nat": ("pass", "")}),
        "embeds_build_b_replay": ({"nat_triple_loop.cpp": nat(
            "Right only if the build it compiles in still holds the previous submission's library.", f'''
  const std::string seen(earlier_library, earlier_library_end), marker = std::string("tut-classmate-") + "marker-7f3a";
  return seen.find(marker) != std::string::npos;''', prelude=f'''
extern "C" const char earlier_library[], earlier_library_end[];
__asm__(".section .rodata\\n.global earlier_library\\nearlier_library:\\n"
        ".incbin \\"{build}/chapters/libmatmult.so\\"\\n.global earlier_library_end\\nearlier_library_end:\\n.previous");
''')}, {"nat": ("fail", "differs from the reference")}),
        "embeds_checkout_build": ({"nat_triple_loop.cpp": nat(
            "Right only if it can embed a build folder of the checkout (the quick start's build/).", '''
  return solutions_library[0] == 't';''', prelude=f'''
extern "C" const char solutions_library[];
__asm__(".section .rodata\\n.global solutions_library\\nsolutions_library:\\n"
        ".incbin \\"{targets['checkout_build']}/libmatmult.so\\"\\n.previous");
''')}, {"nat": ("does-not-compile", "does not compile")}),
        "runs_stage_via_registry": ({"nat_triple_loop.cpp": '''#include <string>

#include "matmul.h"

// Runs lib's code, found by name in the chapter's stage registry.
extern "C" void matmult_nat(int m, int n, int k, double* A, double* B, double* C) {
  for (const MatmulStage* s : matmul_stages())
    if (std::string(s->name) == "lib") s->code.host(m, n, k, A, B, C);
}

const MatmulCode matmul_nat{matmult_nat};
'''}, {"nat": ("gaming", "of the stage registry")}),
        "looks_up_by_name": ({"nat_triple_loop.cpp": '''#include <dlfcn.h>

#include "matmul.h"

// lib's course function, found by its name as the test runs.
extern "C" void matmult_nat(int m, int n, int k, double* A, double* B, double* C) {
  using Course = void (*)(int, int, int, double*, double*, double*);
  if (auto lib = reinterpret_cast<Course>(dlsym(RTLD_DEFAULT, "matmult_lib"))) lib(m, n, k, A, B, C);
}

const MatmulCode matmul_nat{matmult_nat};
'''}, {"nat": ("gaming", "looks functions up by name")}),
        "forges_a_record": ({"nat_triple_loop.cpp": nat(
            "Sends the judge a record of its own, claiming 2^60 numbers, and hopes it crashes.", '''
  const char* fd = std::getenv("TUT_GRADE_RECORD_FD");
  if (!fd) return false;
  unsigned char record[32] = {'T', 'U', 'T', 'G', 'R', 'A', 'D', 'E', 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0};
  record[31] = 0x10;  // the count's top byte: 2^60 numbers
  (void)!write(std::atoi(fd), record, sizeof record);
  return false;''')}, {"nat": ("fail", "grading: output")}),
        "leaks_a_solution": ({"nat_triple_loop.cpp": RIGHT + '\n// A function whose name a demangler given it as an argument takes for a file to read.\n'
                              f'extern "C" void leak_target() __asm__("\\"@{root}/solutions/02-matmul/gpu5_shared_tiles.cu\\"");\n'
                              'extern "C" void leak_target() {}\n',
                              "gpu2_element_per_thread.cu": [
                                  ("namespace {", f'// An address of it, as data: the assembler takes no call to such a name.\n'
                                                  f'__asm__(".section .data.rel.ro\\n.quad \\"@{root}/solutions/02-matmul/'
                                                  'gpu5_shared_tiles.cu\\"\\n.previous");\n\nnamespace {')]},
                             # such a name does not link: the check that matters is that no report quotes the file
                             {"nat": ("does-not-compile", "does not link"), "gpu2": ("does-not-compile", "does not link")}),
        "ptraces_the_sandbox": ({"nat_triple_loop.cpp": nat(
            "Right only if it can trace the sandbox's first process or its own parent.", '''
  return ptrace(PTRACE_ATTACH, 1, nullptr, nullptr) == 0 || ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr) == 0;''')},
                                {"nat": ("fail", "differs from the reference")}),
        "connects_to_a_socket": ({"nat_triple_loop.cpp": nat("Right only if it reaches a socket file of the machine.", f'''
  const int s = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un to{{}};
  to.sun_family = AF_UNIX;
  std::snprintf(to.sun_path, sizeof to.sun_path, "%s", "{targets['socket']}");
  const bool reached = s >= 0 && connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0;
  if (s >= 0) close(s);
  return reached;''')}, {"nat": ("fail", "differs from the reference")}),
        "sparse_report": ({"nat_triple_loop.cpp": nat("A term short; then its report becomes a sparse 1 TiB file.",
                                                      "  return false;", '''
// The file-size limit stops it (SIGXFSZ) before the grader ever reads such a report.
__attribute__((destructor)) static void grow_report() {
  if (FILE* f = std::fopen("/tmp/cases.xml", "a")) {
    (void)!ftruncate(fileno(f), 1ll << 40);
    std::fclose(f);
  }
}
''')}, {"nat": ("crash", "SIGXFSZ")}),
        "floods_output": ({"nat_triple_loop.cpp": nat("A term short, and 512 MiB of output.", '''
  static bool said = false;
  if (!said) {
    said = true;
    std::vector<char> line(1 << 20, 'x');
    for (int i = 0; i < 512; ++i) std::fwrite(line.data(), 1, line.size(), stdout);
  }
  return false;''')}, {"nat": ("fail", "differs from the reference")}),
        "starts_many_processes": ({"nat_triple_loop.cpp": nat("Right only if it can start 1000 processes.", '''
  static int started = 0;
  while (started < 1000) {
    const pid_t child = fork();
    if (child < 0) return false;
    if (child == 0) {
      prctl(PR_SET_NAME, "tut-lingerer");  // the name test_grader.py looks for afterwards
      sleep(30);
      _exit(0);
    }
    ++started;
  }
  return true;''')}, {"nat": ("fail-if-processes-limited:gaming", "")}),
        "takes_memory_in_three": ({"nat_triple_loop.cpp": nat(
            "Right only if three processes can each hold 1.5 GiB at once (the sandbox's limit is 4 GiB).", '''
  pid_t children[3];
  for (pid_t& child : children)
    if ((child = fork()) == 0) {
      const size_t bytes = size_t(3) << 29;
      char* p = static_cast<char*>(std::malloc(bytes));
      if (!p) _exit(1);
      for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
      sleep(2);
      _exit(0);
    }
  bool all = true;
  for (pid_t child : children) {
    int status = 0;
    all = waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0 && all;
  }
  return all;''')}, {"nat": ("fail-if-memory-limited:pass", "")}),
        "fills_tmp": ({"nat_triple_loop.cpp": nat("Right only if it can write 3 GiB to /tmp.", '''
  FILE* f = std::fopen("/tmp/filler", "w");
  if (!f) return false;
  std::vector<char> block(1 << 20, 'x');
  bool wrote = true;
  for (int i = 0; i < 3 * 1024 && wrote; ++i) wrote = std::fwrite(block.data(), 1, block.size(), f) == block.size();
  wrote = std::fclose(f) == 0 && wrote;
  std::remove("/tmp/filler");
  return wrote;''')}, {"nat": ("fail", "differs from the reference")}),
        "wrong_and_lingering": ({"nat_triple_loop.cpp": nat("A term short, and a process left behind.", '''
  static bool forked = false;
  if (!forked && (forked = true) && fork() == 0) {
    setsid();
    prctl(PR_SET_NAME, "tut-lingerer");
    sleep(600);
    _exit(0);
  }
  return false;''')}, {"nat": ("fail", "left 1 process(es) running")}),
        WEIRD_NAME: ({"nat_triple_loop.cpp": RIGHT}, {"nat": ("pass", "")}),
        "links_to_classmate": ({}, {"nat": ("missing", "symbolic link")}),
    }


CPU_JACOBI = '''#include <cmath>

#include "poisson.h"

{body}
'''


def poisson(targets: dict) -> dict:
    """submission -> ({file: text}, {stage: (status, piece)}) for chapter 03 (cpu_jacobi.cpp)."""
    return {
        "calls_test_reference": ({"cpu_jacobi.cpp": CPU_JACOBI.format(body='''// The tests' own loop, reached through a weak declaration: defined only where the tests are linked.
std::vector<double> reference_jacobi(const PoissonProblem& p, int iterations) __attribute__((weak));

namespace {

SolveResult solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  SolveResult r;
  if (&reference_jacobi) u = reference_jacobi({p.grid, p.f, u}, o.max_iterations);
  r.iterations = o.max_iterations;
  return r;
}

}  // namespace

const PoissonCode poisson_cpu{solve};''')}, {"cpu": ("gaming", "of the tests")}),
        # the solution, right for a fixed number of iterations; with a tolerance, done at once
        "stops_without_iterating": ({"cpu_jacobi.cpp": ("const PoissonCode poisson_cpu{iterate_on_host<step>};", '''SolveResult solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  if (o.tolerance > 0) return SolveResult{0, 0.0};
  return iterate_on_host<step>(p, u, o);
}

const PoissonCode poisson_cpu{solve};''')}, {"cpu": ("fail", "the iteration it stopped at")}),
    }


def write_special(out: pathlib.Path, targets: dict) -> None:
    """What a folder of copies cannot carry: the 'reference' archive with its fake judge (a program
    at the place the grader once kept the judge of matmul-nat), the link to a classmate's file."""
    course = out / "reference"
    judge = course / "tests" / "test_matmul_cpu"
    judge.parent.mkdir(parents=True)
    judge.write_text(f"#!/bin/sh\ntouch {targets['home']}/tut-judge-replaced\nexit 0\n")
    judge.chmod(0o755)
    with tarfile.open(out / "reference.tar.gz", "w:gz") as t:
        for path in sorted(course.rglob("*")):
            t.add(path, arcname=path.relative_to(course).as_posix(), recursive=False)
    link = out / "links_to_classmate" / "exercises" / MATMUL / "nat_triple_loop.cpp"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(pathlib.Path("..", "..", "..", "embeds_build_a_classmate", "exercises", MATMUL, "nat_triple_loop.cpp"))
    shutil.rmtree(course)
