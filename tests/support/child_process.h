// A program started as a child of the test (so it can be SIGKILLed and reaped, and dies with the
// test), its output in files; and the complete lines of a file another process is writing.
#pragma once
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include "scratch_files.h"

namespace poppy::testing {

// Runs `program` with `args` (argv[0] is `program`); stdin from /dev/null, stdout to `outFile`
// (/dev/null when empty), stderr to `errFile`.
inline pid_t startChild(const std::string& program, const std::vector<std::string>& args,
                        const std::filesystem::path& outFile, const std::filesystem::path& errFile) {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test
    if (::getppid() != parent) ::_exit(127);
    const int devnull = ::open("/dev/null", O_RDWR);
    const int err = ::open(errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int out = outFile.empty() ? devnull
                    : outFile == errFile ? err
                                         : ::open(outFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(devnull, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<std::string> all = {program};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

// Complete lines (ending in '\n') of a file; a missing file has none.
inline std::vector<std::string> completeLines(const std::filesystem::path& p) {
  std::vector<std::string> out;
  const std::string all = slurp(p);
  size_t start = 0;
  for (size_t nl; (nl = all.find('\n', start)) != std::string::npos; start = nl + 1)
    out.push_back(all.substr(start, nl - start));
  return out;
}

}  // namespace poppy::testing
