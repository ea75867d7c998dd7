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
    if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    // Still here: the restart failed (no /proc, say). Carry on with normal pages; leave the
    // variable set so child processes do not try again either.
#else
    (void)argv;
#endif
}

} // namespace tb
