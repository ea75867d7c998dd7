#include "CpuTime.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <stdexcept>
#include <string>
#include <thread>

namespace tb::testsupport {

namespace {

double clockMs(clockid_t clock)
{
    timespec ts{};
    if (clock_gettime(clock, &ts) != 0)
        throw std::runtime_error("clock_gettime failed for clock " + std::to_string(clock));
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

} // namespace

double processCpuMs()
{
    return clockMs(CLOCK_PROCESS_CPUTIME_ID);
}

double threadCpuMs(pthread_t thread)
{
    clockid_t clock{};
    if (pthread_getcpuclockid(thread, &clock) != 0)
        throw std::runtime_error("pthread_getcpuclockid failed: the thread has ended?");
    return clockMs(clock);
}

int currentThreadId()
{
    return int(gettid());
}

std::optional<ThreadTimes> threadTimes(int tid)
{
    const std::string path = tid == 0 ? std::string("/proc/thread-self/schedstat")
                                      : "/proc/self/task/" + std::to_string(tid) + "/schedstat";
    std::ifstream in(path);
    unsigned long long run = 0, wait = 0;
    if (!(in >> run >> wait))
        return std::nullopt;
    return ThreadTimes{double(run) * 1e-6, double(wait) * 1e-6};
}

std::vector<int> threadIds()
{
    std::vector<int> ids;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
        try {
            ids.push_back(std::stoi(entry.path().filename().string()));
        } catch (const std::exception&) {
        }
    }
    return ids;
}

std::map<int, ThreadTimes> allThreadTimes()
{
    std::map<int, ThreadTimes> all;
    for (int tid : threadIds())
        if (const auto t = threadTimes(tid))
            all.emplace(tid, *t);
    return all;
}

bool waitForCpu(double sinceMs, double ms, const std::function<bool()>& done, std::chrono::milliseconds wallLimit)
{
    const auto end = std::chrono::steady_clock::now() + wallLimit;
    while (true) {
        if (done && done())
            return false;
        if (processCpuMs() - sinceMs >= ms)
            return true;
        if (std::chrono::steady_clock::now() >= end)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

bool waitUntil(const std::function<bool()>& condition, std::chrono::milliseconds limit)
{
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= end)
            return condition();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

} // namespace tb::testsupport
