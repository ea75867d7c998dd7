#include "ProcessSetup.h"

#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__linux__) && defined(__GLIBC__)
#include <unistd.h>
#endif

namespace tb {

void ProcessSetup::useHugePages(char** argv)
{
#if defined(__linux__) && defined(__GLIBC__)
    if (std::getenv("TRAINBENCH_NO_HUGEPAGES"))
        return;
    // Under valgrind a restart would leave the tool (it follows exec() only when asked to).
    if (const char* preload = std::getenv("LD_PRELOAD"); preload && std::strstr(preload, "vgpreload"))
        return;
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    // The user's own choice (hugetlb=0, or an explicit page size) wins; a second pass finds it set.
    if (tunables && std::strstr(tunables, "glibc.malloc.hugetlb"))
        return;
    std::string value = tunables && *tunables ? std::string(tunables) + ":" : std::string();
    value += "glibc.malloc.hugetlb=1";
    // The kernel names a process after the file exec() was given: "/proc/self/exe" would turn
    // trainbench-cli into "exe" for pgrep, kill, ps and the OOM log. Exec the file the link points
    // to instead (readlink gives the absolute path of this very binary).
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || std::size_t(n) >= sizeof self - 1)
        return; // no /proc, or a path too long: run on without huge pages rather than be renamed
    self[n] = '\0';
    // A binary replaced or deleted since it started ("… (deleted)") cannot be exec'd again.
    if (access(self, X_OK) != 0)
        return;
    if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0)
        return;
    execv(self, argv);
    // Still here: the restart failed. Carry on with normal pages; leave the variable set so child
    // processes do not try again either.
#else
    (void)argv;
#endif
}

} // namespace tb
