// `poppy report RUN_DIR`: SVG charts of a training run and an index.html that shows them.
#include <cstdio>
#include <filesystem>

#include "apps/commands.h"
#include "report/run_metrics.h"
#include "report/run_report.h"

namespace poppy::apps {

void addReportCommand(CLI::App& app) {
  struct Args {
    std::string runDir, out;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Charts of a training run (losses, self-play speed, gates, Elo, game length, results) as SVG + CSV, "
                "with an index.html to open in a browser");
  cmd->add_option("run_dir", args->runDir, "Run directory of poppy train")->required();
  cmd->add_option("--out", args->out, "Folder for the report (default RUN_DIR/report)");
  cmd->callback([args] {
    const report::RunMetrics run = report::loadRunMetrics(args->runDir);
    for (const std::string& p : run.problems) std::fprintf(stderr, "warning: %s\n", p.c_str());
    const std::string out = args->out.empty() ? (std::filesystem::path(args->runDir) / "report").string() : args->out;
    const auto written = report::writeRunReport(run, out);
    std::printf("wrote %zu files to %s: open %s in a browser\n", written.size(), out.c_str(),
                (std::filesystem::path(out) / "index.html").string().c_str());
  });
}

}  // namespace poppy::apps
