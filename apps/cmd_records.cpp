// `poppy records export | import`: game records in the formats shogi players use. export
// writes each game of Poppy's JSONL records (a run's games.jsonl, a match's records) as a KIF or
// CSA file that shogi GUIs and databases open; import reads KIF and CSA files (from lishogi,
// 81Dojo, floodgate, ShogiGUI ...) into JSONL records that `poppy openings` reads.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "common/atomic_file.h"
#include "common/progress_line.h"
#include "game/variant_loader.h"
#include "play/game_files/csa_format.h"
#include "play/game_files/game_file.h"
#include "play/game_files/kif_format.h"
#include "selfplay/game_record.h"

namespace poppy::apps {
namespace {

namespace fs = std::filesystem;

struct ExportArgs {
  std::vector<std::string> records;
  std::string format = "kif";
  std::string out;
};

struct ImportArgs {
  std::vector<std::string> files;
  std::string out;
  std::string variant;
};

// A file name from a record id: letters, digits, '-', '_' and '.' kept, anything else '_'.
std::string fileNameOf(const std::string& id) {
  std::string name;
  for (const char c : id) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
  return name.empty() || name[0] == '.' ? "game" + name : name;
}

void runExport(const ExportArgs& a) {
  const play::GameFormat format = play::gameFormatNamed(a.format);
  const std::string ext = format == play::GameFormat::kKif ? ".kif" : ".csa";
  fs::create_directories(a.out);
  std::map<std::string, game::VariantPtr> variants;
  std::map<std::string, int> skipped;  // why -> how many
  std::set<std::string> names;
  int written = 0, total = 0;
  common::ProgressLine progress;
  for (const std::string& path : a.records) {
    const std::vector<selfplay::GameRecord> records = play::readGameFile(path);
    for (const selfplay::GameRecord& r : records) {
      ++total;
      try {
        if (!variants.count(r.variant)) variants[r.variant] = game::loadVariant(r.variant);
        const std::string text = format == play::GameFormat::kKif ? play::gameToKif(r, variants[r.variant])
                                                                 : play::gameToCsa(r, variants[r.variant]);
        // Two games with one id (two files merged) must not overwrite each other.
        std::string name = fileNameOf(r.id);
        for (int k = 2; names.count(name); ++k) name = fileNameOf(r.id) + "-" + std::to_string(k);
        names.insert(name);
        common::writeFileAtomically((fs::path(a.out) / (name + ext)).string(), text);
        ++written;
      } catch (const std::exception& e) {
        ++skipped[std::string(e.what())];
      }
      progress.update("records export: " + std::to_string(written) + " of " + std::to_string(total) + " games written",
                      false);
    }
  }
  progress.update("records export: " + std::to_string(written) + " of " + std::to_string(total) + " games written", true);
  progress.finish();
  std::fprintf(stderr, "records export: wrote %d %s files to %s\n", written, a.format.c_str(), a.out.c_str());
  for (const auto& [why, n] : skipped) std::fprintf(stderr, "records export: skipped %d game(s): %s\n", n, why.c_str());
  if (written == 0 && total > 0) throw std::runtime_error("no game could be written as " + a.format);
}

void runImport(const ImportArgs& a) {
  std::vector<selfplay::GameRecord> records;
  // Read every file before writing anything: one bad file leaves the output as it was.
  for (const std::string& path : a.files) {
    if (play::gameFormatOf(path) == play::GameFormat::kJsonl)
      throw std::invalid_argument("'" + path + "' is not a .kif, .kifu or .csa file");
    for (selfplay::GameRecord& r : play::readGameFile(path, a.variant)) {
      std::fprintf(stderr, "records import: %s: %s, %d plies, %s (%s)\n", path.c_str(), r.variant.c_str(), r.plies,
                   r.result.c_str(), r.reason.c_str());
      records.push_back(std::move(r));
    }
  }
  selfplay::appendGameRecords(a.out, records);
  std::fprintf(stderr, "records import: appended %zu game(s) to %s\n", records.size(), a.out.c_str());
}

}  // namespace

void addRecordsCommands(CLI::App& app) {
  CLI::App* records = app.add_subcommand("records", "Game records as KIF or CSA files, for shogi GUIs and databases");
  records->require_subcommand(1);

  auto ex = std::make_shared<ExportArgs>();
  CLI::App* exportCmd = records->add_subcommand("export", "Write each game of JSONL records as a KIF or CSA file");
  exportCmd->add_option("records", ex->records, "JSONL game records (a run's games.jsonl, a match's records)")
      ->required()
      ->check(CLI::ExistingFile);
  exportCmd->add_option("--format", ex->format, "kif or csa (CSA: 9x9 shogi only)")
      ->check(CLI::IsMember({"kif", "csa"}))
      ->capture_default_str();
  exportCmd->add_option("--out", ex->out, "Directory for the files, one per game, named after the game's id")->required();
  exportCmd->callback([ex] { runExport(*ex); });

  auto im = std::make_shared<ImportArgs>();
  CLI::App* importCmd = records->add_subcommand("import", "Append the games of KIF and CSA files to JSONL records");
  importCmd->add_option("files", im->files, ".kif, .kifu (UTF-8 or Shift_JIS) or .csa files")
      ->required()
      ->check(CLI::ExistingFile);
  importCmd->add_option("--out", im->out, "JSONL records to append to (created if missing)")->required();
  importCmd->add_option("--variant", im->variant,
                        "Variant of files that do not say (KIF: from 手合割 or the board; CSA: shogi)");
  importCmd->callback([im] { runImport(*im); });
}

}  // namespace poppy::apps
