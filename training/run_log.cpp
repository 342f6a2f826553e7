#include "training/run_log.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>

namespace poppy::training {

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void RunLog::keep(const std::string& line) const {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  std::ofstream out(logPath_, std::ios::app);
  out << stamp << "  " << line << "\n";
}

void RunLog::say(const std::string& line) const {
  keep(line);
  if (quiet_) return;
  std::fprintf(stderr, "%s\n", line.c_str());
}

void RunLog::status(const std::string& line, bool force) {
  if (force) keep(line);
  if (quiet_) return;
  const double now = nowSeconds();
  if (!force && now - lastStatus_ < 2.0) return;
  lastStatus_ = now;
  if (isatty(2)) std::fprintf(stderr, "\r\033[K%s", line.c_str());
  else std::fprintf(stderr, "%s\n", line.c_str());
  if (force && isatty(2)) std::fprintf(stderr, "\n");
}

void RunLog::metric(nlohmann::json event) const {
  event["time"] = nowSeconds();
  std::ofstream out(metricsPath_, std::ios::app);
  out << event.dump() << "\n";
}

}  // namespace poppy::training
