// What a training run tells: progress lines on stderr (one line rewritten in place on a
// terminal, at most every 2 seconds unless forced) and one JSON line per event in the run's
// metrics.jsonl, which `poppy report` charts. Shared by the run and its phases.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace poppy::training {

class RunLog {
 public:
  // quiet: no lines on stderr (tests); metrics are written all the same.
  RunLog(std::string metricsPath, bool quiet) : metricsPath_(std::move(metricsPath)), quiet_(quiet) {}

  // A line that stays.
  void say(const std::string& line) const;
  // A progress line; `force` writes it now and keeps it (a phase's last line).
  void status(const std::string& line, bool force = false);
  // Appends one event to metrics.jsonl, stamped with the time.
  void metric(nlohmann::json event) const;

 private:
  std::string metricsPath_;
  bool quiet_;
  double lastStatus_ = 0;
};

// Seconds since the epoch (metrics' "time" and the phases' durations).
double nowSeconds();

}  // namespace poppy::training
