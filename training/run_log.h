// What a training run tells: progress lines on stderr (one line rewritten in place on a
// terminal, at most every 2 seconds unless forced), the lines that stay (said, and each phase's
// last) also in the run's train.log with the time, and one JSON line per event in the run's
// metrics.jsonl, which `poppy report` charts. Shared by the run and its phases.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace poppy::training {

class RunLog {
 public:
  // quiet: no lines on stderr (tests); the log file and the metrics are written all the same.
  RunLog(std::string metricsPath, std::string logPath, bool quiet)
      : metricsPath_(std::move(metricsPath)), logPath_(std::move(logPath)), quiet_(quiet) {}

  // A line that stays.
  void say(const std::string& line) const;
  // A progress line; `force` writes it now and keeps it (a phase's last line).
  void status(const std::string& line, bool force = false);
  // Appends one event to metrics.jsonl, stamped with the time.
  void metric(nlohmann::json event) const;

 private:
  void keep(const std::string& line) const;  // appends to the log file, with the time

  std::string metricsPath_, logPath_;
  bool quiet_;
  double lastStatus_ = 0;
};

// Seconds since the epoch (metrics' "time" and the phases' durations).
double nowSeconds();

}  // namespace poppy::training
